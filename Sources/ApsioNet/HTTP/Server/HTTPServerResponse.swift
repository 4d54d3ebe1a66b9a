/// What a handler answers. The server writes `Content-Length` and `Connection` itself, and may
/// gzip the body when the client accepts it.
package struct HTTPServerResponse: Sendable, Equatable {
    package var status: Int
    package var headers: HTTPHeaders
    package var body: [UInt8]
    /// A body written while it is produced (`HTTPResponseStream`), in place of `body`.
    package var stream: HTTPResponseStream?

    package init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Server-sent events (`text/event-stream`), written as `stream` produces them.
    package static func eventStream(_ stream: HTTPResponseStream) -> HTTPServerResponse {
        var response = HTTPServerResponse(
            status: 200, headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Accel-Buffering": "no"])
        response.stream = stream
        return response
    }

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.status == rhs.status && lhs.headers == rhs.headers && lhs.body == rhs.body && (lhs.stream == nil) == (rhs.stream == nil)
    }

    package static func json(_ body: [UInt8], status: Int = 200, headers: HTTPHeaders = [:]) -> HTTPServerResponse {
        var headers = headers
        headers.set("Content-Type", "application/json")
        return HTTPServerResponse(status: status, headers: headers, body: body)
    }

    package static func text(_ text: String, status: Int = 200) -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }

    /// The reason phrase the server writes; clients must not depend on it.
    static func reason(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 402: "Payment Required"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Status"
        }
    }
}
