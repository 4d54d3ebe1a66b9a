import ApsioPOSIX
import ApsioAgent
import ApsioCore
import ApsioNet
import ApsioPlatform
import Foundation
@testable import ApsioTestSupport
import Testing

/// One app served end to end on the simulated host of TESTING.md: real journal files written by
/// systemd-journal-remote, the unit's state on python-dbusmock's systemd, the live channel over
/// loopback HTTP (`HTTPLiveTransport`, the production transport) to a scripted backend behind a
/// real server, time on a manual clock.
@Suite(.serialized) struct LiveIntegrationTests {
    static let unit = "demo.service"
    static let install = "0b9e2f71-3c44-4d8a-b1f6-5e7a9c2d4f13"
    static let token = String(repeating: "d4", count: 32)
    static let appKey = "apsio_app_live_integration_5b8e1f"

    /// Everything one test runs, stopped in `close()` whatever happened. Used from the test's own
    /// task and from the closures it waits on, one at a time.
    final class Host: @unchecked Sendable {
        let bus: DBusMockFixture
        let journal: JournalFixture
        let backend: ScriptedLiveBackend
        /// The server in front of `backend`, unless the test brought its own network.
        let loopback: LoopbackLiveBackend?
        private let client: HTTPClient?
        let indicator = RecordingLiveHost()
        let clock = ManualAgentClock()
        let state: AgentState
        let app: AppRuntime
        private var tasks: [Task<Void, Never>] = []

        init(
            backend: ScriptedLiveBackend, loopback: LoopbackLiveBackend?, client: HTTPClient?,
            makeTransport: @escaping @Sendable (LiveOrigin) -> any LiveTransport, origin: String
        ) async throws {
            self.backend = backend
            self.loopback = loopback
            self.client = client
            bus = try DBusMockFixture()
            try await bus.startTemplate("systemd", busName: SystemdMock.systemd)
            try await SystemdMock.addUnit(bus, LiveIntegrationTests.unit)
            journal = try JournalFixture()
            // systemd makes the state directory (StateDirectory=); here the test does.
            try FileManager.default.createDirectory(atPath: journal.path + "/state", withIntermediateDirectories: true)
            state = AgentState(root: journal.path + "/state")
            let apps = state.apps
            let name = try AppName("demo")
            let sha = OpenSSLSHA256()
            let indicator = self.indicator
            app = AppRuntime(
                app: AppDescription(
                    name: "demo", unit: LiveIntegrationTests.unit, installationID: LiveIntegrationTests.install,
                    serviceName: "com.example.demo", model: "Test Box", os: "Debian GNU/Linux 12", release: "2.0.1"),
                dayBytes: DayBytes(day: 0, bytes: 0), clock: clock, hashing: sha, makeTransport: makeTransport,
                indicator: { indicator.live($0.event) }, submitDiagnostics: { _ in (0, 0) },
                saveDayBytes: { try? apps.saveDayBytes($0, for: name) })
            await app.start()

            let watcher = UnitStateWatcher(units: [LiveIntegrationTests.unit])
            let supervisor = SystemBusSupervisor(address: .address(bus.address), watchers: [watcher])
            tasks.append(Task { await supervisor.run() })
            let states = try #require(watcher.updates(for: LiveIntegrationTests.unit))
            let app = self.app
            tasks.append(Task { await DeviceFeeds.unitStates(states, into: app) })
            let follower = try JournalFollower(
                source: .directory(journal.path),
                apps: [JournalApp(id: "demo", unit: LiveIntegrationTests.unit, start: .oldest)])
            tasks.append(Task { try? await DeviceFeeds.journal(follower, into: { $0 == "demo" ? app : nil }) })

            let proof = TesterProof(entryID: "qa-box-7", installationID: LiveIntegrationTests.install, hashing: sha)
            await app.live.configure(
                origin: LiveOrigin(origin),
                testers: [TesterEntry(id: "qa-box-7", match: proof.match(hashing: sha), expiresAt: 4_000_000_000)])
            await app.live.send(.consent(true))
        }

        func setUnit(_ entries: [[String]]) async throws {
            try await SystemdMock.update(bus, LiveIntegrationTests.unit, entries)
        }

        func close() async {
            for task in tasks { task.cancel() }
            await app.stop()
            await loopback?.stop()
            client?.closeIdleConnections()
            bus.stopAll()
        }

        /// Waits until `condition` holds, moving the clock by `step` whenever the runtime has
        /// nothing in flight but held `next`s: fake time runs no faster than the network answers,
        /// so it cannot race past a session's end while a body is still on the wire.
        func eventuallyAdvancing(
            _ what: String, by step: Duration, _ condition: @escaping @Sendable () async -> Bool
        ) async throws {
            let app = app
            let backend = backend
            let clock = clock
            try await eventually(what) {
                if await condition() { return true }
                if await app.live.requestsInFlight <= backend.heldNextCount { clock.advance(by: step) }
                return false
            }
        }

        /// Returns once every request the runtime sent has been received and answered by the
        /// server: the client's idle connections closed, the server has none left. Only when
        /// nothing is held.
        func settle() async throws {
            guard let loopback, let client else { return }
            // A request answered after one sweep parks its connection in the pool: sweep until the
            // server sees none, not once.
            try await eventually("every connection closed") {
                client.closeIdleConnections()
                return loopback.server.connectionCount == 0
            }
        }

        /// Starts a live session: the unit active, allow-live on, a hello answered with a viewer.
        func startSession() async throws {
            backend.answerHellos(.status(200, body: .object([
                "viewers": .number(1), "device_token": .string(LiveIntegrationTests.token),
            ]), retryAfter: nil))
            try await setUnit([["ActiveState", "s", "active"], ["SubState", "s", "running"]])
            await app.live.send(.allowed(true))
            try await eventually("the session started, next held") {
                backend.heldNextCount == 1 && backend.requests(to: "/v1/live/frames").count == 1
            }
        }
    }

    /// Runs `body` on a fresh simulated host, and stops every process it started either way.
    /// `makeTransport` and `origin`: the live channel's network and where the policy points it;
    /// by default `HTTPLiveTransport` to the scripted backend behind a server on 127.0.0.1.
    static func withHost(
        makeTransport: (@Sendable (LiveOrigin) -> any LiveTransport)? = nil, origin: String? = nil,
        _ body: (Host) async throws -> Void
    ) async throws {
        let backend = ScriptedLiveBackend()
        var loopback: LoopbackLiveBackend?
        var client: HTTPClient?
        let transport: @Sendable (LiveOrigin) -> any LiveTransport
        let liveOrigin: String
        if let makeTransport, let origin {
            transport = makeTransport
            liveOrigin = origin
        } else {
            let server = try await LoopbackLiveBackend(script: backend)
            // Patient: the box may be loaded, and no scenario waits on a client timeout.
            let patient = try HTTPClient(options: HTTPClient.Options(
                limits: HTTPLimits(connectTimeout: .seconds(60), exchangeTimeout: .seconds(120))))
            transport = { origin in HTTPLiveTransport(client: patient, origin: origin, appKey: AppKey(Self.appKey)) }
            liveOrigin = server.origin
            loopback = server
            client = patient
        }
        let host: Host
        do {
            host = try await Host(
                backend: backend, loopback: loopback, client: client, makeTransport: transport, origin: liveOrigin)
        } catch {
            await loopback?.stop()
            throw error
        }
        do {
            try await body(host)
        } catch {
            await host.close()
            throw error
        }
        await host.close()
    }

    @Test func journalLinesReachTheViewerAFrozenUnitPausesAStoppedOneCloses() async throws {
        try await Self.withHost { host in
        try await host.startSession()
        #expect(host.backend.requests(to: "/v1/live/frames").first?.body?["state"] == .string("live"))

        try await host.journal.write([
            host.journal.entry(unit: Self.unit, message: "GET /health 200"),
            host.journal.entry(unit: "other.service", message: "not ours"),
            host.journal.entry(unit: Self.unit, message: "upstream timed out", priority: 3),
        ])
        try await host.eventuallyAdvancing("the lines in a frames body", by: .milliseconds(250)) {
            let lines = host.backend.requests(to: "/v1/live/frames").flatMap { $0.body?["lines"]?.arrayValue ?? [] }
            return lines.count >= 2
        }
        let lines = host.backend.requests(to: "/v1/live/frames").flatMap { $0.body?["lines"]?.arrayValue ?? [] }
        #expect(lines.compactMap { $0["body"]?.stringValue } == ["GET /health 200", "upstream timed out"])
        #expect(lines.last?["severity"] == .number(17))

        // Frozen: interrupted, so one paused body with its reason.
        try await host.setUnit([["FreezerState", "s", "frozen"]])
        try await eventually("a paused body") {
            host.backend.requests(to: "/v1/live/frames").contains { $0.body?["state"] == .string("paused") }
        }
        let paused = host.backend.requests(to: "/v1/live/frames").first { $0.body?["state"] == .string("paused") }
        #expect(paused?.body?["reason"] == .string("inactive"))

        // Stopped: the channel closes, and no ended body goes out.
        try await host.setUnit([["FreezerState", "s", "running"], ["ActiveState", "s", "inactive"]])
        try await eventually("the session closed") {
            host.indicator.received.contains(.sessionEnded(.reason(.closed)))
        }
        #expect(!host.backend.requests(to: "/v1/live/frames").contains { $0.body?["state"] == .string("ended") })
        try await eventually("the indicator gone") {
            host.indicator.received.last { if case .viewers = $0 { return true } else { return false } } == .viewers(0)
        }
        }
    }

    @Test func commandsTokensAndTurningItOff() async throws {
        try await Self.withHost { host in
        try await host.startSession()

        // A command, then the same id again: run once, answered from memory the second time.
        let screenshot: LiveResponse = .status(200, body: .object([
            "commands": .array([.object(["id": .string("s1"), "name": .string("screenshot"), "args": .object([:])])]),
            "viewers": .number(1), "remaining_ms": .number(1_800_000),
        ]), retryAfter: nil)
        host.backend.answerResults(.status(409, body: nil, retryAfter: nil))
        host.backend.releaseNext(screenshot)
        // The 409 reached the runtime once nothing is in flight: `next` waits for the clock.
        try await eventually("the first result answered") {
            let inFlight = await host.app.live.requestsInFlight
            return host.backend.requests(to: "/v1/live/results").count == 1 && inFlight == 0
        }
        try await eventually("the notice shown") { host.indicator.received.contains(.notice(.screenshot)) }
        host.clock.advance(by: .milliseconds(300))
        try await eventually("next asked again") { host.backend.heldNextCount == 1 }
        host.backend.releaseNext(screenshot)
        try await eventually("the kept result sent again and answered") {
            let inFlight = await host.app.live.requestsInFlight
            return host.backend.requests(to: "/v1/live/results").count == 2 && inFlight == 0
        }
        let results = host.backend.requests(to: "/v1/live/results")
        #expect(results[0].body == results[1].body)
        // The 409 is taken as done: nothing is resent after any backoff (well within the hello interval).
        host.clock.advance(by: .seconds(10))
        try await eventually("next asked again, and nothing else in flight") {
            let inFlight = await host.app.live.requestsInFlight
            return host.backend.heldNextCount == 1 && inFlight == 1
        }
        #expect(host.backend.requests(to: "/v1/live/results").count == 2)

        // A 401 on next: the session ends without an ended body and a hello goes at once, tokenless.
        let hellosBefore = host.backend.requests(to: "/v1/live/hello").count
        host.backend.answerHellos(.status(200, body: .object(["viewers": .number(0)]), retryAfter: nil))
        host.backend.releaseNext(.status(401, body: nil, retryAfter: nil))
        // No clock moves: the hello that follows is the immediate one, and it carries no token.
        try await eventually("an immediate hello without the token") {
            host.backend.requests(to: "/v1/live/hello").dropFirst(hellosBefore).contains { $0.request.token == nil }
        }
        try await eventually("the session ended for the token") { host.indicator.received.contains(.sessionEnded(.tokenLost)) }
        #expect(!host.backend.requests(to: "/v1/live/frames").contains { $0.body?["state"] == .string("ended") })

        // Allow-live off: nothing more leaves, whatever the clock does.
        await host.app.live.send(.allowed(false))
        #expect(await host.app.live.requestsInFlight == 0)
        // Whatever was already on the wire has arrived once the server holds no connection.
        try await host.settle()
        let count = host.backend.seen.count
        host.clock.advance(by: .seconds(3600))
        // Not a synchronisation: a grace period in which a wrong runtime would have connected.
        try await Task.sleep(for: .milliseconds(100))
        #expect(await host.app.live.requestsInFlight == 0)
        #expect(host.loopback?.server.connectionCount == 0)
        #expect(host.backend.seen.count == count)
        }
    }

    /// "It MUST keep the day's count across launches, on disk"
    @Test func theDaysBytesAreOnDiskAndNoSecretIsWhenTheDaemonStops() async throws {
        try await Self.withHost { host in
            try await host.startSession()
            let spent = await host.app.live.dayBytes
            #expect(spent.bytes > 0)
            await host.app.stop()
            #expect(try host.state.apps.dayBytes(for: AppName("demo")) == spent)

            // Every request went over the socket with the app key; neither the proof, the token
            // nor the app key is in any file the runtime wrote.
            let keys = try #require(host.loopback?.appKeysSeen)
            #expect(keys.count == host.backend.seen.count && !keys.isEmpty)
            #expect(keys.allSatisfy { $0 == Self.appKey })
            let proof = TesterProof(entryID: "qa-box-7", installationID: LiveIntegrationTests.install, hashing: OpenSSLSHA256())
            let root = host.journal.path + "/state"
            let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
            #expect(!files.isEmpty)
            for file in files {
                guard let data = FileManager.default.contents(atPath: root + "/" + file) else { continue }
                let text = String(decoding: data, as: UTF8.self)
                #expect(!text.contains(proof.secretHex), "\(file) holds the proof")
                #expect(!text.contains(LiveIntegrationTests.token), "\(file) holds the token")
                #expect(!text.contains(Self.appKey), "\(file) holds the app key")
            }
        }
    }

    /// "raise_log_level: for 30 minutes, in memory only ... ends when consent ... withdraws it"
    @Test func aRaisedLogLevelReachesTheAppAndEndsWithConsent() async throws {
        try await Self.withHost { host in
            try await host.startSession()
            host.backend.releaseNext(.status(200, body: .object([
                "commands": .array([.object(["id": .string("r1"), "name": .string("raise_log_level"), "args": .object([:])])]),
                "viewers": .number(1),
            ]), retryAfter: nil))
            try await eventually("the level raised") { await host.app.logLevelRaisedUntilUnixMs != nil }
            let until = try #require(await host.app.logLevelRaisedUntilUnixMs)
            #expect(until == host.clock.now().wallUnixMs + 1_800_000)
            await host.app.live.send(.consent(false))
            try await eventually("the level restored") { await host.app.logLevelRaisedUntilUnixMs == nil }
        }
    }

    @Test func aTokenlessHelloAnswerEndsTheSession() async throws {
        try await Self.withHost { host in
        try await host.startSession()
        host.backend.answerHellos(.status(200, body: .object(["viewers": .number(1)]), retryAfter: nil))
        host.clock.advance(by: .seconds(30))
        try await eventually("the session ended by the renewing hello") {
            host.indicator.received.contains(.sessionEnded(.tokenLost))
        }
        try await eventually("the held next cancelled") { host.backend.cancelledNext >= 1 }
        }
    }
}
