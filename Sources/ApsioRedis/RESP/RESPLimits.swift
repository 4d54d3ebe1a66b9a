/// How much of a reply the client holds before it calls the server hostile: Redis is trusted
/// to answer, not to answer sanely (a wrong port, a proxy, a bug).
package struct RESPLimits: Sendable {
    /// Bytes received and not yet parsed: the largest reply in flight.
    package var maxBufferedBytes: Int
    package var maxBulkBytes: Int
    package var maxArrayElements: Int
    /// Arrays within arrays: replies here are at most two deep (EXEC of HGETALLs).
    package var maxDepth: Int
    /// A simple string, error or integer line, without its CRLF.
    package var maxLineBytes: Int

    package init(
        maxBufferedBytes: Int = 64 << 20, maxBulkBytes: Int = 16 << 20, maxArrayElements: Int = 1 << 20,
        maxDepth: Int = 8, maxLineBytes: Int = 64 << 10
    ) {
        self.maxBufferedBytes = maxBufferedBytes
        self.maxBulkBytes = maxBulkBytes
        self.maxArrayElements = maxArrayElements
        self.maxDepth = maxDepth
        self.maxLineBytes = maxLineBytes
    }

    package static let standard = RESPLimits()
}

/// The server's bytes are not RESP, or pass a limit: the connection can no longer be trusted to
/// pair replies with requests, so it is closed and every request on it fails.
package enum RESPProtocolError: Error, Equatable, CustomStringConvertible {
    case unknownType(UInt8)
    case malformedLine
    case malformedLength
    case tooLarge(String)
    case tooDeep
    /// A reply when no request waits for one: the pairing of replies with requests is lost.
    case unsolicitedReply

    package var description: String {
        switch self {
        case .unknownType(let byte): "a reply starts with byte \(byte), not a RESP type"
        case .malformedLine: "a reply line is not terminated by CRLF"
        case .malformedLength: "a reply has a length or integer that is not a number"
        case .tooLarge(let what): "a reply's \(what) passes the client's limit"
        case .tooDeep: "a reply nests arrays deeper than the client's limit"
        case .unsolicitedReply: "a reply came when no request waited for one"
        }
    }
}
