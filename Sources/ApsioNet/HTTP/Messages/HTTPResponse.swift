/// A complete response: status, fields, and the body with any gzip undone. 3xx responses arrive
/// here like any other; nothing is followed.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var reason: String
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int, reason: String = "", headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
    }

    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The wait `Retry-After` asks for, given the wall clock now (for its HTTP-date form); nil when
    /// absent or unreadable.
    public func retryAfter(nowUnixSeconds: Int) -> Duration? {
        headers["Retry-After"].flatMap { RetryAfter.parse($0, nowUnixSeconds: nowUnixSeconds) }
    }
}
