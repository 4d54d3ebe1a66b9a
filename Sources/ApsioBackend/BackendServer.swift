package import ApsioPOSIX
package import ApsioCore
package import ApsioNet

/// The backend on the network layer's server, in memory or as one instance of a fleet: the
/// device's routes of 16.4 (hello, next, frames, results), the policy and an ingest sink, a JSON
/// API for signed-in viewers, and the viewer's pages.
package final class BackendServer: Sendable {
    package let service: any HubService
    package let configuration: BackendConfiguration
    private let accounts: AccountsBook
    private let server: HTTPServer

    package static let sessionCookie = "apsio_session"

    package init(
        configuration: BackendConfiguration, accounts: AccountsFile, clock: any AgentClock = SystemAgentClock(),
        limits: Limits = .spec, backendLimits: BackendLimits = .default, serverLimits: HTTPServerLimits? = nil
    ) throws(BackendConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        let accounts = AccountsBook(accounts)
        self.accounts = accounts
        var backendLimits = backendLimits
        if let retention = configuration.auditRetention { backendLimits.auditRetention = retention }
        // One hub either way: its state in Redis, shared by the instances of a fleet, or in this
        // process (the demo, one instance).
        let stores: FleetStores = configuration.redis.map { .redis($0, clock: clock, backendLimits: backendLimits) }
            ?? .memory(clock: clock, backendLimits: backendLimits)
        let service: any HubService = FleetService(
            configuration: configuration.hub, accounts: accounts, stores: stores, clock: clock, limits: limits, backendLimits: backendLimits)
        self.service = service
        var serverLimits = serverLimits ?? Self.serverLimits
        if serverLimits.maxConnections == Self.serverLimits.maxConnections {
            serverLimits.maxConnections = configuration.maxConnections
        }
        var router = HTTPRouter()
        Self.addDeviceRoutes(&router, service: service)
        Self.addViewerRoutes(&router, service: service, accounts: accounts, secureCookie: configuration.tls != nil)
        Self.addViewerPages(&router)
        router.mayHold = Self.mayHold
        server = HTTPServer(
            bind: configuration.listenHost, port: configuration.listenPort, tls: configuration.tls, limits: serverLimits,
            router: router)
    }

    /// The requests answered late, which end as soon as their client leaves: a device's `next`
    /// and the viewers' stream polls. Every other request is answered at once, in its
    /// connection's task.
    package static func mayHold(_ request: HTTPServerRequest) -> Bool {
        request.path == "/v1/live/next" || request.path == "/api/streams"
            || (request.path.hasPrefix("/api/devices/") && request.path.hasSuffix("/stream"))
    }

    /// Every device holds a `next` and every viewer a stream poll: more connections than the
    /// server's default, and an idle time longer than a hold.
    package static let serverLimits = HTTPServerLimits(maxConnections: BackendConfiguration.defaultMaxConnections, idleTimeout: .seconds(60))

    /// Binds and serves; returns the port.
    package func start() async throws(HTTPServerError) -> Int {
        await service.start()
        do {
            return try await server.start()
        } catch {
            await service.stop()
            throw error
        }
    }

    package func stop() async {
        await service.stop()
        await server.stop()
    }

    /// SIGHUP read the accounts file again: sign-ins, passwords and rights follow it from now on.
    package func readAccounts(_ file: AccountsFile) async {
        accounts.replace(with: file)
        await service.accountsChanged()
    }

    // MARK: - The device's routes (16.4) and ingest

    private static func addDeviceRoutes(_ router: inout HTTPRouter, service: any HubService) {
        router.add("POST", "/v1/live/hello") { request in
            response(await service.hello(appKey: appKey(request), token: liveToken(request), body: request.body))
        }
        router.add("GET", "/v1/live/next") { request in
            response(await service.next(appKey: appKey(request), token: liveToken(request), install: request.query("install")))
        }
        router.add("POST", "/v1/live/frames") { request in
            response(await service.frames(
                appKey: appKey(request), token: liveToken(request), body: request.body, wireBytes: wireBytes(request)))
        }
        router.add("POST", "/v1/live/results") { request in
            response(await service.results(
                appKey: appKey(request), token: liveToken(request), body: request.body, wireBytes: wireBytes(request)))
        }
        router.add("GET", "/v1/policy") { request in
            let (reply, etag) = await service.policy(appKey: appKey(request), ifNoneMatch: request.headers["If-None-Match"])
            var headers: HTTPHeaders = ["Cache-Control": "no-cache"]
            if let etag { headers.set("ETag", etag) }
            return response(reply, headers: headers)
        }
        router.add("POST", "/v1/logs") { request in
            // OTLP/HTTP's two encodings, by their media types; a missing type is read as JSON.
            let type = request.headers["Content-Type"]?.lowercased() ?? OTLPEncoding.json.contentType
            guard let encoding = OTLPEncoding.allCases.first(where: { type.hasPrefix($0.contentType) }) else {
                return response(.error(
                    415, "unsupported_media_type",
                    "this sink takes OTLP/HTTP protobuf (application/x-protobuf) or JSON (application/json)"))
            }
            return response(await service.ingest(appKey: appKey(request), body: request.body, encoding: encoding))
        }
    }

    static func appKey(_ request: HTTPServerRequest) -> String? { request.headers["Apsio-App-Key"] }
    static func liveToken(_ request: HTTPServerRequest) -> String? { request.headers["Apsio-Live-Token"] }

    /// The body's size as sent: compressed when it came compressed (16.3 counts bodies "as sent").
    static func wireBytes(_ request: HTTPServerRequest) -> Int {
        if request.headers.hasToken("gzip", in: "Content-Encoding") || request.headers.hasToken("zstd", in: "Content-Encoding"),
            let length = request.headers["Content-Length"].flatMap({ Int($0) }), length >= 0
        {
            return length
        }
        return request.body.count
    }

    static func response(_ reply: HubReply, headers: HTTPHeaders = [:]) -> HTTPServerResponse {
        var headers = headers
        if !headers.contains("Cache-Control") { headers.set("Cache-Control", "no-store") }
        if let seconds = reply.retryAfterSeconds { headers.set("Retry-After", String(seconds)) }
        guard let json = reply.json else { return HTTPServerResponse(status: reply.status, headers: headers) }
        return .json(json, status: reply.status, headers: headers)
    }
}
