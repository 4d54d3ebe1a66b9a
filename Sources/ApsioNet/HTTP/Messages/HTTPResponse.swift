/// A complete response: status, fields, and the body with any gzip undone. 3xx responses arrive
/// here like any other; nothing is followed.
package struct HTTPResponse: Sendable, Equatable {
    package var status: Int
    package var reason: String
    package var headers: HTTPHeaders
    package var body: [UInt8]

    package init(status: Int, reason: String = "", headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
    }

    package var isSuccess: Bool { (200..<300).contains(status) }

    /// The wait `Retry-After` asks for, given the wall clock now (for its HTTP-date form); nil when
    /// absent or unreadable.
    package func retryAfter(nowUnixSeconds: Int) -> Duration? {
        headers["Retry-After"].flatMap { RetryAfter.parse($0, nowUnixSeconds: nowUnixSeconds) }
    }
}
