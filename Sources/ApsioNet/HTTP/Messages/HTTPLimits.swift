/// Every limit on what an HTTP peer controls, as data: the parsers, the client and the server all
/// take one, so a test can set each one low and check it at the limit and one past it.
///
/// This file and the other parser files import nothing, so the fuzz entry points can compile them
/// on their own (see docs/fuzzing.md).
package struct HTTPLimits: Sendable, Equatable {
    /// The status line of a response, or the request line of a request, CRLF included.
    package var maxStartLineBytes: Int
    /// The whole head (start line, every header line and the blank line), and separately the
    /// trailer section of a chunked body.
    package var maxHeaderBytes: Int
    /// Header fields in one head, and trailer fields in one chunked body.
    package var maxHeaderCount: Int
    /// A chunk-size line, extensions included.
    package var maxChunkLineBytes: Int
    /// The body as it travels, and again once gzip is undone: a small body cannot expand past it.
    package var maxBodyBytes: Int
    /// DNS resolution and the TCP connect together.
    package var connectTimeout: Duration
    /// The TLS handshake, certificate verification included.
    package var tlsHandshakeTimeout: Duration
    /// One exchange from the call to the last byte of the response, connecting included. A
    /// request may set a longer one (a long poll).
    package var exchangeTimeout: Duration

    package init(
        maxStartLineBytes: Int = 8 * 1024,
        maxHeaderBytes: Int = 64 * 1024,
        maxHeaderCount: Int = 100,
        maxChunkLineBytes: Int = 1024,
        maxBodyBytes: Int = 1 << 20,
        connectTimeout: Duration = .seconds(10),
        tlsHandshakeTimeout: Duration = .seconds(10),
        exchangeTimeout: Duration = .seconds(60)
    ) {
        self.maxStartLineBytes = maxStartLineBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxChunkLineBytes = maxChunkLineBytes
        self.maxBodyBytes = maxBodyBytes
        self.connectTimeout = connectTimeout
        self.tlsHandshakeTimeout = tlsHandshakeTimeout
        self.exchangeTimeout = exchangeTimeout
    }

    /// 8 KiB start line, 64 KiB of head in at most 100 fields, 1 MiB of body; 10 s to connect,
    /// 10 s to shake hands, 60 s for an exchange (more than the 25 s a long poll is held).
    package static let `default` = HTTPLimits()
}
