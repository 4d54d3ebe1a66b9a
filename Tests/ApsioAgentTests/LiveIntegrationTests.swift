import ApsioPOSIX
import ApsioAgent
import ApsioCore
import ApsioNet
import ApsioPlatform
import Foundation
@testable import ApsioTestSupport
import Testing

/// One app served end to end on the simulated host of TESTING.md: real journal files written by
/// systemd-journal-remote, the unit's state on python-dbusmock's systemd, the live channel on a
/// scripted backend, time on a manual clock.
@Suite(.serialized) struct LiveIntegrationTests {
    static let unit = "demo.service"
    static let install = "0b9e2f71-3c44-4d8a-b1f6-5e7a9c2d4f13"
    static let token = String(repeating: "d4", count: 32)

    /// Everything one test runs, stopped in `close()` whatever happened. Used from the test's own
    /// task and from the closures it waits on, one at a time.
    final class Host: @unchecked Sendable {
        let bus: DBusMockFixture
        let journal: JournalFixture
        let backend = ScriptedLiveBackend()
        let indicator = RecordingLiveHost()
        let clock = ManualAgentClock()
        let state: AgentState
        let app: AppRuntime
        private var tasks: [Task<Void, Never>] = []

        /// `makeTransport`: the live channel's network; the scripted backend when nil.
        init(makeTransport: (@Sendable (LiveOrigin) -> any LiveTransport)? = nil, origin: String = "http://127.0.0.1:9") async throws {
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
            let backend = self.backend
            let indicator = self.indicator
            app = AppRuntime(
                app: AppDescription(
                    name: "demo", unit: LiveIntegrationTests.unit, installationID: LiveIntegrationTests.install,
                    serviceName: "com.example.demo", model: "Test Box", os: "Debian GNU/Linux 12", release: "2.0.1"),
                dayBytes: DayBytes(day: 0, bytes: 0), clock: clock, hashing: sha, makeTransport: makeTransport ?? { _ in backend },
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
            bus.stopAll()
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
    static func withHost(
        makeTransport: (@Sendable (LiveOrigin) -> any LiveTransport)? = nil, origin: String = "http://127.0.0.1:9",
        _ body: (Host) async throws -> Void
    ) async throws {
        let host = try await Host(makeTransport: makeTransport, origin: origin)
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
        try await eventually("the lines in a frames body") {
            host.clock.advance(by: .milliseconds(500))
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
        try await eventually("the first result") { host.backend.requests(to: "/v1/live/results").count == 1 }
        try await eventually("the notice shown") { host.indicator.received.contains(.notice(.screenshot)) }
        try await eventually("next asked again") {
            host.clock.advance(by: .milliseconds(300))
            return host.backend.heldNextCount == 1
        }
        host.backend.releaseNext(screenshot)
        try await eventually("the kept result sent again") { host.backend.requests(to: "/v1/live/results").count == 2 }
        let results = host.backend.requests(to: "/v1/live/results")
        #expect(results[0].body == results[1].body)
        // The 409 is taken as done: nothing is resent after any backoff (well within the hello interval).
        host.clock.advance(by: .seconds(10))
        try await eventually("next asked again") { host.backend.heldNextCount == 1 }
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
        try await Task.sleep(for: .milliseconds(20))
        let count = host.backend.seen.count
        host.clock.advance(by: .seconds(3600))
        try await Task.sleep(for: .milliseconds(50))
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

            // Neither the proof nor the token is in any file the runtime wrote.
            let proof = TesterProof(entryID: "qa-box-7", installationID: LiveIntegrationTests.install, hashing: OpenSSLSHA256())
            let root = host.journal.path + "/state"
            let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
            #expect(!files.isEmpty)
            for file in files {
                guard let data = FileManager.default.contents(atPath: root + "/" + file) else { continue }
                let text = String(decoding: data, as: UTF8.self)
                #expect(!text.contains(proof.secretHex), "\(file) holds the proof")
                #expect(!text.contains(LiveIntegrationTests.token), "\(file) holds the token")
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
