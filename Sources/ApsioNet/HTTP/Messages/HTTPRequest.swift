/// One request for `HTTPClient.send`. The client adds `Host`, `Content-Length`, `Connection`,
/// `Accept-Encoding: gzip`, `User-Agent` and, with `gzipBody`, `Content-Encoding: gzip`; the
/// caller adds its own (`Apsio-App-Key`, `Apsio-Live-Token`, `Content-Type`).
package struct HTTPRequest: Sendable {
    package var method: String
    /// The path and query, starting with `/`: `/v1/live/next?install=…`. The endpoint's base path
    /// goes in front of it.
    package var path: String
    package var headers: HTTPHeaders
    package var body: [UInt8]
    /// Compress the body with gzip and say so in `Content-Encoding` (spec 1.1).
    package var gzipBody: Bool
    /// Longer (or shorter) than the client's exchange deadline: a long poll sets 25 s plus margin.
    package var timeout: Duration?
    /// Whether sending it twice does no harm. Only such a request is sent again when a reused
    /// connection turns out closed after the request went out (see docs/http.md); `GET` is, by
    /// default, and a `POST` whose receiver drops duplicates may say so.
    package var isIdempotent: Bool

    package init(
        method: String, path: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
        gzipBody: Bool = false, timeout: Duration? = nil, isIdempotent: Bool? = nil
    ) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.gzipBody = gzipBody
        self.timeout = timeout
        self.isIdempotent = isIdempotent ?? ["GET", "HEAD", "OPTIONS", "PUT", "DELETE"].contains(method)
    }

    package static func get(_ path: String, headers: HTTPHeaders = [:], timeout: Duration? = nil) -> HTTPRequest {
        HTTPRequest(method: "GET", path: path, headers: headers, timeout: timeout)
    }

    /// A JSON body, gzip-compressed as spec 1.1 sends ingest's and the live channel's.
    package static func postJSON(
        _ path: String, json: [UInt8], headers: HTTPHeaders = [:], gzip: Bool = true, timeout: Duration? = nil,
        isIdempotent: Bool = false
    ) -> HTTPRequest {
        var headers = headers
        if !headers.contains("Content-Type") { headers.add("Content-Type", "application/json") }
        return HTTPRequest(
            method: "POST", path: path, headers: headers, body: json, gzipBody: gzip, timeout: timeout,
            isIdempotent: isIdempotent)
    }

    /// Fields the client writes itself; a caller's copy would contradict the framing.
    static let reservedHeaders = [
        "Host", "Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive", "Upgrade", "TE", "Trailer",
        "Proxy-Connection", "Expect",
    ]
}
