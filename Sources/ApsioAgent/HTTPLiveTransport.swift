public import ApsioPOSIX
public import ApsioCore
public import ApsioNet

/// The live channel over HTTP: to `live.origin` only, the app key on every request, the token on
/// those that carry one, bodies already gzip-compressed, no redirect followed (the client never
/// follows one), no cache and no cookies (the client keeps none).
public struct HTTPLiveTransport: LiveTransport {
    private let client: HTTPClient
    private let endpoint: HTTPEndpoint
    private let appKey: AppKey
    private let limits: Limits
    private let wallClock: @Sendable () -> Int64

    public init(
        client: HTTPClient, origin: LiveOrigin, appKey: AppKey, limits: Limits = .spec,
        wallUnixMs: @escaping @Sendable () -> Int64 = SystemAgentClock.wallUnixMs
    ) {
        self.client = client
        endpoint = HTTPEndpoint(origin: origin)
        self.appKey = appKey
        self.limits = limits
        wallClock = wallUnixMs
    }

    public func send(_ request: LiveHTTPRequest) async throws(CancellationError) -> LiveResponse {
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
            let retryAfter = response.retryAfter(nowUnixSeconds: Int(wallClock() / 1000))
            return .status(response.status, body: JSONValueEncoding.decode(response.body), retryAfter: retryAfter)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            if Task.isCancelled { throw CancellationError() }
            return .failed
        }
    }
}
