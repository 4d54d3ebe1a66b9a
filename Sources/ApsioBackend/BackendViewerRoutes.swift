import ApsioCore
import ApsioJSON
import ApsioNet

/// The viewers' JSON API under `/api/`. Only people signed in with a password reach the hub
/// through it: a request that carries an app key or a device token, or offers an app key as its
/// bearer, is refused whatever else it carries (16.7).
extension BackendServer {
    static func addViewerRoutes(
        _ router: inout HTTPRouter, service: any HubService, accounts: AccountsBook, secureCookie: Bool
    ) {
        router.add("POST", "/api/login") { request in
            if let refusal = serviceCredentialRefusal(request, service: service) { return refusal }
            return await login(request, service: service, accounts: accounts, secureCookie: secureCookie)
        }
        router.add("POST", "/api/logout") { request in
            if let token = signInToken(request) { await service.signOut(token: token) }
            var headers: HTTPHeaders = [:]
            headers.set("Set-Cookie", cookie(value: "", maxAge: 0, secure: secureCookie))
            return response(.empty, headers: headers)
        }
        router.add("GET", "/api/me") { request in
            await asViewer(request, service: service) { viewer in
                var writer = JSONWriter()
                writer.beginObject()
                writer.key("user"); writer.string(viewer.user)
                writer.key("may_send_commands"); writer.bool(viewer.mayChangeSettings)
                writer.endObject()
                return .ok(writer.bytes)
            }
        }
        // Open to anyone, like a load balancer's health check: it says only whether the state is reachable.
        router.add("GET", "/api/health") { _ in response(await service.health()) }
        router.add("GET", "/api/devices") { request in
            await asViewer(request, service: service) { _ in await service.devices() }
        }
        router.add("GET", "/api/ingest") { request in
            await asViewer(request, service: service) { _ in
                let (requests, total) = await service.ingested()
                var writer = JSONWriter()
                writer.beginObject()
                writer.key("total"); writer.int(Int64(total))
                writer.key("requests")
                writer.beginArray()
                for kept in requests {
                    writer.beginObject()
                    writer.key("app"); writer.string(kept.app)
                    writer.key("received_at"); writer.int(kept.receivedUnixMs)
                    writer.key("body"); writer.raw(kept.json)
                    writer.endObject()
                }
                writer.endArray()
                writer.endObject()
                return .ok(writer.bytes)
            }
        }
        addStreamsRoute(&router, service: service)
        addFleetEventsRoute(&router, service: service)
        router.add("GET", "/api/audit") { request in
            await audit(request, service: service)
        }
        router.addPrefix("/api/devices/") { request in
            await deviceRoute(request, service: service)
        }
    }

    /// `/api/devices/{install}/watch|commands|stream`, with `?app=` when an install is not unique.
    private static func deviceRoute(_ request: HTTPServerRequest, service: any HubService) async -> HTTPServerResponse {
        let rest = request.path.dropFirst("/api/devices/".count)
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].utf8.count <= 256 else {
            return response(.error(404, "no_such_route", "no such route"))
        }
        let install = String(parts[0])
        let allowed: [String]
        switch parts[1] {
        case "watch": allowed = ["DELETE", "GET", "POST"]
        case "commands": allowed = ["POST"]
        case "stream": allowed = ["GET"]
        default: return response(.error(404, "no_such_route", "no such route"))
        }
        guard allowed.contains(request.method) else {
            var headers: HTTPHeaders = [:]
            headers.set("Allow", allowed.joined(separator: ", "))
            return response(.error(405, "method_not_allowed", "use \(allowed.joined(separator: " or "))"), headers: headers)
        }
        let app = request.query("app")
        return await asViewer(request, service: service) { viewer in
            switch (parts[1], request.method) {
            case ("watch", "POST"): return await service.watch(viewer, app: app, install: install)
            case ("watch", "GET"): return await service.watchState(viewer, app: app, install: install)
            case ("watch", _): return await service.leave(viewer, app: app, install: install)
            case ("commands", _): return await service.command(viewer, app: app, install: install, body: request.body)
            default:
                var after: UInt64?
                if let text = request.query("after") {
                    guard let number = UInt64(text) else { return .error(400, "unreadable", "after is a sequence number") }
                    after = number
                }
                return await service.stream(viewer, app: app, install: install, after: after)
            }
        }
    }

    /// `GET /api/audit?device=APP/INSTALL`: who watched the device and what they sent, as JSON
    /// lines, for the people allowed to change the project's settings.
    private static func audit(_ request: HTTPServerRequest, service: any HubService) async -> HTTPServerResponse {
        guard let device = request.query("device"), let slash = device.firstIndex(of: "/"),
            slash != device.startIndex, device.index(after: slash) != device.endIndex
        else { return response(.error(400, "unreadable", "name the device: ?device=APP/INSTALL")) }
        let key = DeviceKey(app: String(device[..<slash]), install: String(device[device.index(after: slash)...]))
        var lines: [[UInt8]] = []
        let refused = await asViewer(request, service: service) { viewer in
            guard viewer.mayChangeSettings else {
                return .error(403, "forbidden", "only people allowed to change the project's settings read the audit")
            }
            switch await service.audit(of: key) {
            case .success(let entries):
                lines = entries
                return .empty
            case .failure(let unavailable): return unavailable.reply
            }
        }
        guard refused.status == 200 else { return refused }
        var body: [UInt8] = []
        for line in lines { body += line + [UInt8(ascii: "\n")] }
        return HTTPServerResponse(status: 200, headers: ["Content-Type": "application/x-ndjson", "Cache-Control": "no-store"], body: body)
    }

    /// Runs `body` for a signed-in person; anyone else gets 401, a service credential 403.
    static func asViewer(
        _ request: HTTPServerRequest, service: any HubService,
        _ body: (HubViewerIdentity) async -> HubReply
    ) async -> HTTPServerResponse {
        if let refusal = serviceCredentialRefusal(request, service: service) { return refusal }
        var viewer: HubViewerIdentity?
        if let token = signInToken(request) {
            switch await service.viewer(token: token) {
            case .success(let found): viewer = found
            case .failure(let unavailable): return response(unavailable.reply)
            }
        }
        guard let viewer else {
            var headers: HTTPHeaders = [:]
            headers.set("WWW-Authenticate", "Bearer")
            return response(.error(401, "sign_in", "sign in first: POST /api/login"), headers: headers)
        }
        return response(await body(viewer))
    }

    /// A project token, an upload token or a device's credential never opens a live view, and
    /// never sends a command: only a person signed in does (16.7).
    static func serviceCredentialRefusal(_ request: HTTPServerRequest, service: any HubService) -> HTTPServerResponse? {
        let offered = request.headers.contains("Apsio-App-Key") || request.headers.contains("Apsio-Live-Token")
            || bearer(request).map(service.isAppKey) == true
        guard offered else { return nil }
        return response(.error(403, "service_credential", "a project or service credential cannot open a live view; a person signs in"))
    }

    private static func login(
        _ request: HTTPServerRequest, service: any HubService, accounts book: AccountsBook, secureCookie: Bool
    ) async -> HTTPServerResponse {
        let accounts = book.current
        guard let body = JSONBody.object(request.body), let user = body["user"]?.stringValue,
            let password = body["password"]?.stringValue, user.utf8.count <= 64, password.utf8.count <= 1024
        else { return response(.error(400, "unreadable", "sign in with {\"user\": …, \"password\": …}")) }
        guard await service.reservePasswordCheck() else {
            var reply = HubReply.error(503, "busy", "too many sign-ins at once; try again")
            reply.retryAfterSeconds = 1
            return response(reply)
        }
        let account = accounts.account(named: user)
        // On a thread of its own: a check takes half a second or more (`PasswordCheckThreads`).
        let verified = await PasswordCheckThreads.run {
            if let account { return account.password.verifies(password) }
            // The same work for an unknown name, so timing does not tell which names exist.
            let iterations = accounts.accounts.first?.password.iterations ?? PasswordHash.defaultIterations
            _ = PasswordHash(password: password, iterations: iterations, salt: [UInt8](repeating: 0, count: PasswordHash.saltBytes))
            return false
        }
        await service.releasePasswordCheck()
        guard verified, let account else {
            return response(.error(401, "sign_in", "unknown user or wrong password"))
        }
        let token: String
        switch await service.signIn(account) {
        case .success(let signIn): token = signIn.token
        case .failure(let unavailable): return response(unavailable.reply)
        }
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("user"); writer.string(account.user)
        writer.key("role"); writer.string(account.role.rawValue)
        writer.key("may_send_commands"); writer.bool(account.role.mayChangeSettings)
        writer.key("token"); writer.string(token)
        writer.endObject()
        var headers: HTTPHeaders = [:]
        let lifetime = Int(service.backendLimits.signInLifetime.components.seconds)
        headers.set("Set-Cookie", cookie(value: token, maxAge: lifetime, secure: secureCookie))
        return response(.ok(writer.bytes), headers: headers)
    }

    private static func cookie(value: String, maxAge: Int, secure: Bool) -> String {
        "\(sessionCookie)=\(value); Path=/api; Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// The sign-in token of a bearer header or, failing that, of the session cookie.
    static func signInToken(_ request: HTTPServerRequest) -> String? {
        if let bearer = bearer(request) { return bearer }
        for header in request.headers.values("Cookie") {
            for pair in header.split(separator: ";") {
                let fields = pair.split(separator: "=", maxSplits: 1)
                guard fields.count == 2, fields[0].trimmingCharacters(in: " \t") == sessionCookie else { continue }
                return fields[1].trimmingCharacters(in: " \t")
            }
        }
        return nil
    }

    private static func bearer(_ request: HTTPServerRequest) -> String? {
        guard let value = request.headers["Authorization"], value.utf8.count > 7,
            value.prefix(7).lowercased() == "bearer "
        else { return nil }
        return String(value.dropFirst(7))
    }
}
