/// One RESP2 reply: what Redis answers to a command, or pushes on a subscribed connection.
package enum RESPValue: Sendable, Equatable {
    case simple(String)
    /// An error reply (`-ERR …`, `-WRONGTYPE …`): an answer to one command, not a broken connection.
    case error(String)
    case integer(Int64)
    /// A bulk string; nil is the null bulk string (`$-1`), a missing key.
    case bulk([UInt8]?)
    /// An array; nil is the null array (`*-1`), an aborted transaction.
    case array([RESPValue]?)

    /// A bulk or simple string, as UTF-8 text.
    package var text: String? {
        switch self {
        case .simple(let text): text
        case .bulk(let bytes?): String(decoding: bytes, as: UTF8.self)
        default: nil
        }
    }

    package var bytes: [UInt8]? {
        switch self {
        case .simple(let text): Array(text.utf8)
        case .bulk(let bytes): bytes
        default: nil
        }
    }

    package var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    package var elements: [RESPValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    package var isNull: Bool {
        switch self {
        case .bulk(nil), .array(nil): true
        default: false
        }
    }
}
