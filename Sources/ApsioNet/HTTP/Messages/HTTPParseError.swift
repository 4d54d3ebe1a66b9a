/// Why bytes from a peer are not an HTTP/1.1 message we accept. The parsers throw these; the
/// client wraps them in `HTTPClientError.malformedResponse`, and the server answers them with the
/// status `suggestedStatus` names and closes the connection.
package enum HTTPParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The status line (or the request line) is not `HTTP/1.x NNN reason` (`METHOD /target HTTP/1.x`).
    case invalidStartLine
    /// A version other than HTTP/1.0 or HTTP/1.1.
    case unsupportedVersion
    case startLineTooLong(limit: Int)
    case headersTooLarge(limit: Int)
    case tooManyHeaders(limit: Int)
    /// A header line without a colon, with a space before it, with a folded continuation or with
    /// a control character.
    case invalidHeaderLine
    /// A line ended with a bare LF or a bare CR.
    case invalidLineEnding
    /// Not a decimal number, or several that disagree.
    case invalidContentLength
    /// Both `Content-Length` and `Transfer-Encoding`: the framing smuggling attacks rely on.
    case conflictingFraming
    /// A transfer coding other than `chunked` alone.
    case unsupportedTransferEncoding(String)
    case invalidChunk(String)
    case chunkLineTooLong(limit: Int)
    case bodyTooLarge(limit: Int)
    /// The peer closed the connection in the middle of a message.
    case truncated(String)
    /// A `101 Switching Protocols` nobody asked for.
    case unexpectedSwitchingProtocols
    /// A request target that is not an absolute path (`/…`).
    case invalidTarget
    /// An HTTP/1.1 request without exactly one `Host` field.
    case invalidHost

    package var description: String {
        switch self {
        case .invalidStartLine: "the first line of the message is not valid HTTP/1.1"
        case .unsupportedVersion: "the peer speaks an HTTP version other than 1.0 or 1.1"
        case .startLineTooLong(let limit): "the first line of the message is longer than \(limit) bytes"
        case .headersTooLarge(let limit): "the header section is larger than \(limit) bytes"
        case .tooManyHeaders(let limit): "the message has more than \(limit) header fields"
        case .invalidHeaderLine: "a header line is malformed"
        case .invalidLineEnding: "a line does not end with CRLF"
        case .invalidContentLength: "Content-Length is not one decimal number"
        case .conflictingFraming: "the message has both Content-Length and Transfer-Encoding"
        case .unsupportedTransferEncoding(let coding): "unsupported Transfer-Encoding \"\(coding)\" (only chunked is accepted)"
        case .invalidChunk(let why): "malformed chunked body: \(why)"
        case .chunkLineTooLong(let limit): "a chunk-size line is longer than \(limit) bytes"
        case .bodyTooLarge(let limit): "the body is larger than \(limit) bytes"
        case .truncated(let whereCut): "the connection closed in the middle of the \(whereCut)"
        case .unexpectedSwitchingProtocols: "the server switched protocols without being asked"
        case .invalidTarget: "the request target is not an absolute path"
        case .invalidHost: "an HTTP/1.1 request needs exactly one Host field"
        }
    }

    /// The status a server answers this with before closing the connection.
    package var suggestedStatus: Int {
        switch self {
        case .startLineTooLong: 414
        case .headersTooLarge, .tooManyHeaders: 431
        case .bodyTooLarge: 413
        case .unsupportedTransferEncoding: 501
        case .unsupportedVersion: 505
        default: 400
        }
    }
}
