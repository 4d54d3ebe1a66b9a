import ApsioBackend
import ApsioCore
import ApsioJSON
import ApsioNet
import ApsioTestSupport
import Foundation
import Testing

/// The development backend over real loopback HTTP: the network layer's server and client.
@Suite struct BackendHTTPTests {
    /// The server watches for the client leaving only where a request is held (a device's
    /// `next`, the viewers' stream polls), so that such a hold ends with its client; every other
    /// request is answered in its connection's own task.
    @Test(arguments: [
        ("GET", "/v1/live/next", true), ("GET", "/api/devices/6f1c/stream", true), ("POST", "/api/streams", true),
        ("POST", "/v1/live/hello", false), ("POST", "/v1/live/frames", false), ("POST", "/v1/live/results", false),
        ("GET", "/v1/policy", false), ("POST", "/api/devices/6f1c/watch", false), ("POST", "/api/devices/6f1c/commands", false),
        ("POST", "/api/login", false), ("GET", "/api/devices", false), ("GET", "/api/fleet/events", false),
    ])
    func onlyHeldRequestsAreWatchedForTheirClientLeaving(method: String, path: String, held: Bool) {
        #expect(BackendServer.mayHold(HTTPServerRequest(method: method, path: path)) == held)
    }

    static let appKey = "apsio_app_http_test_key"
    static let install = "0d6b8f0e-1c1e-4a53-9d2f-7e6b1c906f1c"
    static let proof = TesterProof(entryID: "qa-box-9", installationID: install, hashing: sha256)
    static let accounts = AccountsFile(accounts: [
        Account(user: "ann", role: .admin, password: PasswordHash(password: "ann-password", iterations: 1000)),
        Account(user: "bob", role: .viewer, password: PasswordHash(password: "bob-password", iterations: 1000)),
    ])

    /// A started backend and a client for it; stopped when `body` ends, even when it throws.
    static func withBackend(_ body: (BackendServer, Client) async throws -> Void) async throws {
        let entry = TesterEntry(id: proof.entryID, match: proof.match(hashing: sha256), expiresAt: 4_000_000_000)
        let configuration = BackendConfiguration(
            listenHost: "127.0.0.1", listenPort: 0,
            hub: HubConfiguration(
                origin: LiveOrigin("http://127.0.0.1:8787")!, apps: [HubApp(name: "demo", appKey: appKey, testers: [entry])]),
            development: true)
        let backend = try BackendServer(configuration: configuration, accounts: accounts, serverLimits: patientServer)
        let port = try await backend.start()
        do {
            try await body(backend, try Client(port: port))
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    /// The test process shares two cores with other suites that block threads while their
    /// helper processes run: deadlines here are generous, so only a real failure fails a test.
    static let patientServer = HTTPServerLimits(
        maxConnections: 256, idleTimeout: .seconds(120), requestTimeout: .seconds(60), writeTimeout: .seconds(60))

    /// The client of every test here (Tests/ApsioTestSupport/BackendHTTPClient.swift), with this
    /// suite's app key and tester for a device's requests (the extension below).
    typealias Client = BackendHTTPClient

    /// Waits, with a generous deadline, until the backend holds `count` requests.
    static func waitForHeld(_ backend: BackendServer, count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while await backend.service.heldRequestCount() < count {
            guard ContinuousClock.now < deadline else { throw HeldTimeout() }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    struct HeldTimeout: Error {}

    @Test func aHelloGetsAToken() async throws {
        try await Self.withBackend { _, client async throws in
            let answer = try await client.hello()
            #expect(answer.status == 200)
            #expect(Hex.isLowercase(answer.body["device_token"]?.stringValue ?? "", length: 64))
            #expect(answer.body["interval_s"]?.numberValue == 30)
            #expect(answer.headers["Cache-Control"] == "no-store")
        }
    }

    @Test func anUnknownAppKeyIs401() async throws {
        try await Self.withBackend { _, client async throws in
            #expect(try await client.hello(key: "not-the-app-key").status == 401)
            #expect(try await client.send(.get("/v1/policy", headers: ["Apsio-App-Key": "nope-nope"])).status == 401)
            #expect(try await client.send(.get("/v1/policy")).status == 401)
            #expect(try await client.device("/v1/logs", .object([:]), key: "nope-nope").status == 401)
        }
    }

    @Test func unknownRoutesAndMethods() async throws {
        try await Self.withBackend { _, client async throws in
            #expect(try await client.send(.get("/v1/live/hello")).status == 405)
            #expect(try await client.send(.get("/v1/live/nothing")).status == 404)
            #expect(try await client.api("PUT", "/api/devices/x/watch", bearer: nil).status == 405)
            #expect(try await client.api("GET", "/api/devices/x/elsewhere", bearer: nil).status == 404)
        }
    }

    /// The whole path: a person signs in and watches, the device starts a session, its `next` is
    /// held until the person's command arrives, and the result reaches the person's stream.
    @Test func nextIsHeldUntilACommandFromAnAllowedPerson() async throws {
        try await Self.withBackend { backend, client async throws in
            let first = try #require(try await client.hello().body["device_token"]?.stringValue)
            let ann = try await client.signIn("ann", "ann-password")
            let watch = try await client.api("POST", "/api/devices/\(Self.install)/watch", bearer: ann)
            #expect(watch.status == 200 && watch.body["watching"]?.boolValue == true)
            let hello = try await client.hello(token: first)
            #expect(hello.body["viewers"]?.numberValue == 1)
            let token = try #require(hello.body["device_token"]?.stringValue)
            #expect(token == first)
            let frames = try await client.device(
                "/v1/live/frames", .object(["install": .string(Self.install), "state": .string("live"), "lines": .array([])]),
                token: token)
            #expect(frames.status == 200)

            let next = Task {
                try await client.send(.get(
                    "/v1/live/next?install=\(Self.install)",
                    headers: ["Apsio-App-Key": Self.appKey, "Apsio-Live-Token": token]))
            }
            try await Self.waitForHeld(backend, count: 1)
            let command = try await client.api(
                "POST", "/api/devices/\(Self.install)/commands", bearer: ann, body: .object(["name": .string("diagnostics")]))
            #expect(command.status == 202)
            let answer = try await next.value
            #expect(answer.status == 200)
            let sent = try #require(answer.body["commands"]?.arrayValue?.first)
            #expect(sent["name"]?.stringValue == "diagnostics" && sent["id"] == command.body["id"])
            #expect(answer.body["remaining_ms"]?.numberValue ?? 0 > 0)

            let result = try await client.device(
                "/v1/live/results",
                .object([
                    "install": .string(Self.install), "id": sent["id"]!, "name": .string("diagnostics"),
                    "outcome": .string("done"), "at": .number(1_800_000_000_000), "result": .object(["ok": .bool(true)]),
                ]), token: token)
            #expect(result.status == 200)
            let stream = try await client.api("GET", "/api/devices/\(Self.install)/stream", bearer: ann)
            let types = stream.body["events"]?.arrayValue?.compactMap { $0["type"]?.stringValue } ?? []
            #expect(types.contains("result") && types.contains("frames") && types.contains("session_started"))
        }
    }

    /// A result that arrives after its session ended is answered 200 and reaches nobody's stream.
    @Test func aResultAfterTheSessionEndedIsNotStreamed() async throws {
        try await Self.withBackend { _, client async throws in
            let first = try #require(try await client.hello().body["device_token"]?.stringValue)
            let ann = try await client.signIn("ann", "ann-password")
            #expect(try await client.api("POST", "/api/devices/\(Self.install)/watch", bearer: ann).status == 200)
            let token = try #require(try await client.hello(token: first).body["device_token"]?.stringValue)
            let live = try await client.device(
                "/v1/live/frames", .object(["install": .string(Self.install), "state": .string("live"), "lines": .array([])]),
                token: token)
            #expect(live.status == 200)
            let command = try await client.api(
                "POST", "/api/devices/\(Self.install)/commands", bearer: ann, body: .object(["name": .string("screenshot")]))
            #expect(command.status == 202)
            let next = try await client.send(.get(
                "/v1/live/next?install=\(Self.install)", headers: ["Apsio-App-Key": Self.appKey, "Apsio-Live-Token": token]))
            let sent = try #require(next.body["commands"]?.arrayValue?.first)

            let ended = try await client.device(
                "/v1/live/frames", .object(["install": .string(Self.install), "state": .string("ended"), "reason": .string("paused")]),
                token: token)
            #expect(ended.status == 200)
            let result = try await client.device(
                "/v1/live/results",
                .object([
                    "install": .string(Self.install), "id": sent["id"]!, "name": .string("screenshot"),
                    "outcome": .string("done"), "at": .number(1_800_000_000_000), "result": .object(["frame": .array([])]),
                ]), token: token)
            #expect(result.status == 200)
            let stream = try await client.api("GET", "/api/devices/\(Self.install)/stream", bearer: ann)
            let types = stream.body["events"]?.arrayValue?.compactMap { $0["type"]?.stringValue } ?? []
            #expect(types.contains("session_ended"))
            #expect(!types.contains("result"))
        }
    }

    /// The in-memory hub keeps its audit in memory: the session, the command and its outcome are
    /// there, the line that was streamed is not.
    @Test func theAuditInMemorySaysWhoWatchedAndNotWhatWasStreamed() async throws {
        try await Self.withBackend { _, client async throws in
            let first = try #require(try await client.hello().body["device_token"]?.stringValue)
            let ann = try await client.signIn("ann", "ann-password")
            #expect(try await client.api("POST", "/api/devices/\(Self.install)/watch", bearer: ann).status == 200)
            let token = try #require(try await client.hello(token: first).body["device_token"]?.stringValue)
            let marker = "streamed-\(UUID().uuidString)"
            _ = try await client.device(
                "/v1/live/frames",
                .object(["install": .string(Self.install), "state": .string("live"), "lines": .array([.object(["body": .string(marker)])])]),
                token: token)
            _ = try await client.api("POST", "/api/devices/\(Self.install)/commands", bearer: ann, body: .object(["name": .string("diagnostics")]))
            let next = try await client.send(.get(
                "/v1/live/next?install=\(Self.install)", headers: ["Apsio-App-Key": Self.appKey, "Apsio-Live-Token": token]))
            let sent = try #require(next.body["commands"]?.arrayValue?.first)
            _ = try await client.device(
                "/v1/live/results",
                .object([
                    "install": .string(Self.install), "id": sent["id"]!, "name": .string("diagnostics"), "outcome": .string("failed"),
                    "at": .number(1_800_000_000_000), "result": .object([:]),
                ]), token: token)

            let answer = try await client.http.send(
                HTTPRequest(method: "GET", path: "/api/audit?device=demo/\(Self.install)", headers: ["Authorization": "Bearer \(ann)"]),
                to: client.endpoint)
            let body = String(decoding: answer.body, as: UTF8.self)
            let types = body.split(separator: "\n").compactMap { JSONBody.parse(Array($0.utf8))?["type"]?.stringValue }
            #expect(types == ["watch", "session_started", "command", "result"], "\(body)")
            #expect(body.contains(#""outcome":"failed""#))
            #expect(!body.contains(marker))
            #expect(try await client.api("GET", "/api/audit", bearer: ann).status == 400)
        }
    }

    @Test func aPersonWhoMayNotChangeSettingsCannotSendCommands() async throws {
        try await Self.withBackend { _, client async throws in
            let first = try #require(try await client.hello().body["device_token"]?.stringValue)
            let bob = try await client.signIn("bob", "bob-password")
            #expect(try await client.api("POST", "/api/devices/\(Self.install)/watch", bearer: bob).status == 200)
            _ = try await client.hello(token: first)
            let command = try await client.api(
                "POST", "/api/devices/\(Self.install)/commands", bearer: bob, body: .object(["name": .string("screenshot")]))
            #expect(command.status == 403)
        }
    }

    /// "MUST open a live view ... only for a person it has signed in: never for a project token,
    /// an upload token or a service credential."
    @Test func aServiceCredentialNeverOpensALiveView() async throws {
        try await Self.withBackend { _, client async throws in
            let token = try #require(try await client.hello().body["device_token"]?.stringValue)
            let ann = try await client.signIn("ann", "ann-password")
            let watch = "/api/devices/\(Self.install)/watch"
            // The app key, as a header or as a bearer, and the device token: refused.
            #expect(try await client.api("POST", watch, bearer: nil, headers: ["Apsio-App-Key": Self.appKey]).status == 403)
            #expect(try await client.api("POST", watch, bearer: Self.appKey).status == 403)
            #expect(try await client.api("POST", watch, bearer: nil, headers: ["Apsio-Live-Token": token]).status == 403)
            #expect(try await client.api("POST", watch, bearer: token).status == 401)
            #expect(try await client.api("GET", "/api/devices", bearer: Self.appKey).status == 403)
            // Not even beside a person's sign-in.
            #expect(try await client.api("POST", watch, bearer: ann, headers: ["Apsio-App-Key": Self.appKey]).status == 403)
            // Nobody at all: sign in first.
            #expect(try await client.api("GET", "/api/devices", bearer: nil).status == 401)
            #expect(try await client.api("POST", "/api/devices/\(Self.install)/commands", bearer: Self.appKey,
                                         body: .object(["name": .string("screenshot")])).status == 403)
        }
    }

    @Test func signInNeedsTheRightPasswordAndTheCookieWorks() async throws {
        try await Self.withBackend { _, client async throws in
            #expect(try await client.post("/api/login", .object(["user": .string("ann"), "password": .string("wrong")])).status == 401)
            #expect(try await client.post("/api/login", .object(["user": .string("nobody"), "password": .string("x")])).status == 401)
            let answer = try await client.post("/api/login", .object(["user": .string("ann"), "password": .string("ann-password")]))
            let cookie = try #require(answer.headers["Set-Cookie"])
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
            let pair = try #require(cookie.split(separator: ";").first.map(String.init))
            let me = try await client.api("GET", "/api/me", bearer: nil, headers: ["Cookie": pair])
            #expect(me.status == 200 && me.body["user"]?.stringValue == "ann")
            #expect(try await client.api("POST", "/api/logout", bearer: nil, headers: ["Cookie": pair]).status == 200)
            #expect(try await client.api("GET", "/api/me", bearer: nil, headers: ["Cookie": pair]).status == 401)
        }
    }

    @Test func thePolicyHasTheLiveObjectAndAnETag() async throws {
        try await Self.withBackend { _, client async throws in
            let policy = try await client.send(.get("/v1/policy", headers: ["Apsio-App-Key": Self.appKey]))
            #expect(policy.status == 200)
            #expect(policy.body["live"]?["origin"]?.stringValue == "http://127.0.0.1:8787")
            let testers = try #require(policy.body["live"]?["testers"]?.arrayValue)
            #expect(testers.first?["match"]?.stringValue == Self.proof.match(hashing: sha256))
            #expect(testers.first?["proof"] == nil)
            let etag = try #require(policy.headers["ETag"])
            let again = try await client.send(.get("/v1/policy", headers: ["Apsio-App-Key": Self.appKey, "If-None-Match": etag]))
            #expect(again.status == 304)
            #expect(again.headers["ETag"] == etag)
        }
    }

    @Test func theIngestSinkKeepsWhatItAccepts() async throws {
        try await Self.withBackend { backend, client async throws in
            let batch: JSONValue = .object(["resourceLogs": .array([.object(["scopeLogs": .array([])])])])
            let answer = try await client.device("/v1/logs", batch)
            #expect(answer.status == 200 && answer.body == .object([:]))
            #expect(try await client.send(.postJSON("/v1/logs", json: Array("not json".utf8), headers: ["Apsio-App-Key": Self.appKey])).status == 400)
            let kept = await backend.service.ingested()
            #expect(kept.total == 1)
            #expect(json(kept.requests.first?.json) == batch)
            #expect(kept.requests.first?.app == "demo")
        }
    }
}

extension BackendHTTPClient {
    func device(_ path: String, _ body: JSONValue, token: String? = nil) async throws -> (status: Int, body: JSONValue, headers: HTTPHeaders) {
        try await device(path, body, token: token, key: BackendHTTPTests.appKey)
    }

    func hello(token: String? = nil, key: String = BackendHTTPTests.appKey) async throws -> (status: Int, body: JSONValue, headers: HTTPHeaders) {
        try await device(
            "/v1/live/hello",
            .object([
                "install": .string(BackendHTTPTests.install), "model": .string("Box"), "os": .string("Debian GNU/Linux 12"),
                "release": .string("1.0"), "tester": .string(BackendHTTPTests.proof.entryID),
                "proof": .string(BackendHTTPTests.proof.secretHex),
            ]), token: token, key: key)
    }
}
