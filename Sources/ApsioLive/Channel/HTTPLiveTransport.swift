import ApsioPOSIX
package import ApsioCore
package import ApsioNet

/// The live channel over HTTP: to `live.origin` only, the app key on every request, the token on
/// those that carry one, bodies already gzip-compressed, no redirect followed (the client never
/// follows one), no cache and no cookies (the client keeps none).
package struct HTTPLiveTransport: LiveTransport {
    private let client: HTTPClient
    private let endpoint: HTTPEndpoint
    private let appKey: AppKey
    private let limits: Limits
    private let wallClock: @Sendable () -> Int64
    private let report: @Sendable (_ failure: String?) -> Void

    /// `report`: told after each exchange why no answer came (nil when one did), in words that
    /// hold no header, token or body, for the daemon's log.
    package init(
        client: HTTPClient, origin: LiveOrigin, appKey: AppKey, limits: Limits = .spec,
        wallUnixMs: @escaping @Sendable () -> Int64 = SystemAgentClock.wallUnixMs,
        report: @escaping @Sendable (_ failure: String?) -> Void = { _ in }
    ) {
        self.client = client
        endpoint = HTTPEndpoint(origin: origin)
        self.appKey = appKey
        self.limits = limits
        wallClock = wallUnixMs
        self.report = report
    }

    package func send(_ request: LiveHTTPRequest) async throws(CancellationError) -> LiveResponse {
        var headers: HTTPHeaders = ["Apsio-App-Key": appKey.secret, "Accept": "application/json"]
        if let token = request.token { headers.set("Apsio-Live-Token", token.secretHex) }
        if request.gzipBody != nil {
            headers.set("Content-Type", "application/json")
            headers.set("Content-Encoding", "gzip")
        }
        // `next` is held up to 25 s by the backend; anything else answers at once.
        let isNext = request.path.hasPrefix("/v1/live/next")
        let timeout: Duration = isNext ? limits.nextHoldTime + .seconds(20) : .seconds(30)
        let http = HTTPRequest(
            method: request.method.rawValue, path: request.path, headers: headers, body: request.gzipBody ?? [],
            gzipBody: false, timeout: timeout, isIdempotent: request.method == .get)
        do {
            let response = try await client.send(http, to: endpoint)
            report(nil)
            let retryAfter = response.retryAfter(nowUnixSeconds: Int(wallClock() / 1000))
            return .status(response.status, body: response.body, retryAfter: retryAfter)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            if Task.isCancelled { throw CancellationError() }
            // The client's message names what to fix (a refused connection, an /etc/hosts line that
            // sends localhost elsewhere) and carries no header or body.
            let what = request.path.split(separator: "?").first.map(String.init) ?? request.path
            report("\(what) to \(endpoint) got no answer: \(error)")
            return .failed
        }
    }
}
