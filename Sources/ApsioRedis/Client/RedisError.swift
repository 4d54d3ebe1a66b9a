/// Why a command got no reply. An error reply (`-ERR …`) is not one of these: it is the
/// command's answer, `RESPValue.error`.
package enum RedisError: Error, Equatable, CustomStringConvertible {
    /// Redis could not be reached, or the connection broke before the reply: the caller may try
    /// again once `retryIn` has passed (the client's backoff).
    case unavailable(reason: String, retryIn: Duration)
    /// No reply within the request's deadline. The connection was closed, so a late reply never
    /// answers another request.
    case timedOut
    /// Redis's bytes were not RESP, or passed a limit; the connection was closed.
    case protocolViolation(RESPProtocolError)
    /// Too many requests or bytes waiting on the connection: the caller sheds load.
    case overloaded
    /// The client was closed.
    case closed

    package var description: String {
        switch self {
        case .unavailable(let reason, let retryIn): "Redis is unavailable (\(reason)); retrying in \(retryIn)"
        case .timedOut: "Redis did not answer in time"
        case .protocolViolation(let error): "Redis's reply was not understood: \(error)"
        case .overloaded: "too many requests are waiting for Redis"
        case .closed: "the Redis client is closed"
        }
    }
}
