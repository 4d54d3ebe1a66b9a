/// How an app's batches are compressed on the wire (its app file's `Compression=`): gzip, which
/// every OTLP/HTTP receiver must read, or zstd, smaller for about the same CPU, which a receiver
/// may not read.
package enum OTLPCompression: String, Sendable, CaseIterable {
    case gzip
    case zstd

    /// The request's `Content-Encoding` (RFC 9110 8.4.1; zstd by RFC 8878).
    package var contentEncoding: String { rawValue }
}
