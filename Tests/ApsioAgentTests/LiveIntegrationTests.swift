import ApsioPOSIX
@testable import ApsioAgent
import ApsioCore
import ApsioControl
import ApsioNet
import ApsioPlatform
import Foundation
import Synchronization
@testable import ApsioTestSupport
import Testing
@testable import ApsioLive
@testable import ApsioState

/// The daemon itself, in process, as `apsiod` assembles it (`Daemon`: the app files, the served
/// apps, the bus feeds, the live journal reader), on the simulated host of TESTING.md: real
/// journal files written by systemd-journal-remote, the unit's state on python-dbusmock's
/// systemd, and a scripted backend on 127.0.0.1 that serves the policy, takes ingest and answers
/// the live channel over real HTTP. Time is a manual clock, so the rules that take minutes (the
/// hello interval, a 401's window, the day's bytes) run in moments; what the machine shows is
/// read as `apsioctl watch` reads it, from the daemon's control interface.
@Suite(.serialized) struct LiveIntegrationTests {
    static let unit = "demo.service"
    static let token = String(repeating: "d4", count: 32)
    static let appKey = "apsio_app_live_integration_5b8e1f"
    static let app = try! AppName("demo")

    /// Everything one test runs, stopped in `close()` whatever happened. Used from the test's own
    /// task and from the closures it waits on, one at a time.
    final class Host: @unchecked Sendable {
        let root: TemporaryDirectory
        let bus: DBusMockFixture
        let journal: JournalFixture
        let server: ScriptedBackendServer
        var backend: ScriptedLiveBackend { server.script }
        let clock = ManualAgentClock()
        let log = DaemonLog(minimum: .debug, destination: .memory)
        let daemon: Daemon
        let install: String
        let state: AgentState
        private final class Watched: Sendable {
            let events = Mutex<[ControlEvent]>([])
            let changes = ChangeSignal()
        }
        private let watched = Watched()
        private var tasks: [Task<Void, Never>] = []

        /// `backend`: another backend to point the app at, made once the install id is known (it
        /// lists the install as a tester); by default the scripted one.
        init(backend external: ((_ install: String) async throws -> String)? = nil) async throws {
            root = try TemporaryDirectory("apsio-live")
            let stateDirectory = root.path + "/state"
            for directory in ["state", "run", "sys", "proc"] {
                try FileManager.default.createDirectory(atPath: root.path + "/" + directory, withIntermediateDirectories: true)
            }
            state = AgentState(root: stateDirectory)
            install = try state.apps.installationID(for: LiveIntegrationTests.app)
            server = try await ScriptedBackendServer()
            bus = try DBusMockFixture()
            journal = try JournalFixture()
            try await bus.startTemplate("systemd", busName: SystemdMock.systemd)
            try await SystemdMock.addUnit(bus, LiveIntegrationTests.unit)

            let sha = OpenSSLSHA256()
            let proof = TesterProof(entryID: "qa-box-7", installationID: install, hashing: sha)
            server.setPolicy(.object([
                "live": .object([
                    "origin": .string(server.origin),
                    "testers": .array([.object([
                        "id": .string("qa-box-7"), "match": .string(proof.match(hashing: sha)),
                        "expires_at": .number(4_000_000_000),
                    ])]),
                ])
            ]))
            let backendOrigin = try await external?(install) ?? server.origin
            try root.write("etc/apsiod.conf", "[Indicator]\nMotdFile=\nAnnounceTerminals=no\n")
            try root.write("etc/apps.d/demo.conf", """
                [App]
                Unit=\(LiveIntegrationTests.unit)
                Name=com.example.demo
                Version=2.0.1
                Backend=\(backendOrigin)
                AppKey=\(LiveIntegrationTests.appKey)
                Consent=granted
                """)
            var options = DaemonOptions()
            options.configDirectory = root.path + "/etc"
            options.stateDirectory = stateDirectory
            options.runtimeDirectory = root.path + "/run"
            options.journalDirectory = journal.path
            options.sysfs = root.path + "/sys"
            options.procfs = root.path + "/proc"
            daemon = try Daemon(
                options: options,
                edges: DaemonEdges(
                    clock: clock, hashing: sha, log: log, bus: .address(bus.address), utmpPath: root.path + "/utmp"))
            await daemon.start()
            let events = try await daemon.watch(apps: [])
            let watched = self.watched
            tasks.append(Task {
                for await event in events {
                    watched.events.withLock { $0.append(event) }
                    watched.changes.notify()
                }
            })
            if external == nil { try await until("the policy fetched") { self.server.policyRequests >= 1 } }
        }

        /// What `apsioctl watch` has shown so far.
        var events: [ControlEvent] { watched.events.withLock { $0 } }
        var notices: [LiveCommandName] {
            events.compactMap { if case .notice(_, let command, _, _) = $0 { command } else { nil } }
        }
        var endings: [String] { events.compactMap { if case .ended(_, let reason) = $0 { reason } else { nil } } }
        var viewers: Int? {
            events.last { if case .status = $0 { true } else { false } }.flatMap {
                if case .status(let status) = $0 { status.viewers } else { nil }
            }
        }

        var live: LiveRuntime {
            get async throws { await (try #require(await daemon.runtime(of: LiveIntegrationTests.app))).live }
        }

        func allowLive(_ on: Bool) async throws {
            _ = try await daemon.setAllowLive(on, apps: [LiveIntegrationTests.app])
        }

        func setUnit(_ entries: [[String]]) async throws {
            try await SystemdMock.update(bus, LiveIntegrationTests.unit, entries)
        }

        func close() async {
            for task in tasks { task.cancel() }
            await daemon.stop()
            await server.stop()
            bus.stopAll()
        }

        /// Waits until `condition` holds, re-checked whenever the backend, the machine's indicator,
        /// the live runtime or the clock's sleepers change.
        func until(_ what: String, _ condition: @Sendable () async throws -> Bool) async throws {
            let live: LiveRuntime? = await daemon.runtime(of: LiveIntegrationTests.app)?.live
            let sources: [any ChangeSource] = [backend.changes, watched.changes, clock] + (live.map { [$0] } ?? [])
            try await ApsioTestSupport.until(what, on: sources, condition)
        }

        /// Waits until `condition` holds, moving the clock on by `step` whenever the runtime has
        /// nothing in flight but held `next`s: fake time runs no faster than the network answers,
        /// so it cannot race past a session's end while a body is still on the wire. Time moves
        /// until some task wakes; what that task does next is the change waited for.
        func eventuallyAdvancing(
            _ what: String, by step: Duration, _ condition: @escaping @Sendable () async -> Bool
        ) async throws {
            let live: LiveRuntime = try await self.live
            let deadline = waitDeadline(seconds: 60)
            while true {
                var waits = ([backend.changes, watched.changes, live] as [any ChangeSource]).map { $0.markChange() }
                if await condition() { return }
                if await live.requestsInFlight <= backend.heldNextCount {
                    var advance = clock.advance(by: step)
                    while advance.woken == 0 && !advance.asleep.isEmpty { advance = clock.advance(by: step) }
                    waits.append(advance.changed)
                } else {
                    waits.append(clock.markChange())
                }
                try await anyChange(what, waits, before: deadline)
            }
        }

        /// Returns once every request the runtime sent has been received and answered by the
        /// server: the client's idle connections closed, the server has none left. Only when
        /// nothing is held.
        func settle() async throws {
            let client = await daemon.client
            // A request answered after one sweep parks its connection in the pool: sweep until the
            // server sees none, not once. The sockets close in the kernel's time: polled.
            try await poll("every connection closed") {
                client.closeIdleConnections()
                return self.server.server.connectionCount == 0
            }
        }

        /// Starts a live session as an operator and a team would: allow-live on, the unit active,
        /// a hello answered with a viewer.
        func startSession() async throws {
            backend.answerHellos(.status(200, json: .object([
                "viewers": .number(1), "device_token": .string(LiveIntegrationTests.token),
            ]), retryAfter: nil))
            try await setUnit([["ActiveState", "s", "active"], ["SubState", "s", "running"]])
            _ = try await daemon.setAllowLive(true, apps: [LiveIntegrationTests.app])
            try await until("the session started, next held") {
                self.backend.heldNextCount == 1 && self.backend.requests(to: "/v1/live/frames").count == 1
            }
        }
    }

    /// Runs `body` on a fresh simulated host, and stops every process it started either way.
    static func withHost(
        backend: ((_ install: String) async throws -> String)? = nil, _ body: (Host) async throws -> Void
    ) async throws {
        let host = try await Host(backend: backend)
        do {
            try await body(host)
        } catch {
            Issue.record("the daemon's log:\n\(host.log.lines.joined(separator: "\n"))")
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
        try await host.until("a paused body") {
            host.backend.requests(to: "/v1/live/frames").contains { $0.body?["state"] == .string("paused") }
        }
        let paused = host.backend.requests(to: "/v1/live/frames").first { $0.body?["state"] == .string("paused") }
        #expect(paused?.body?["reason"] == .string("inactive"))

        // Stopped: the channel closes, and no ended body goes out.
        try await host.setUnit([["FreezerState", "s", "running"], ["ActiveState", "s", "inactive"]])
        try await host.until("the session closed") {
            host.endings.contains("closed")
        }
        #expect(!host.backend.requests(to: "/v1/live/frames").contains { $0.body?["state"] == .string("ended") })
        try await host.until("the indicator gone") { host.viewers == 0 }
        }
    }

    @Test func commandsTokensAndTurningItOff() async throws {
        try await Self.withHost { host in
        try await host.startSession()

        // A command, then the same id again: run once, answered from memory the second time.
        let screenshot: LiveResponse = .status(200, json: .object([
            "commands": .array([.object(["id": .string("s1"), "name": .string("screenshot"), "args": .object([:])])]),
            "viewers": .number(1), "remaining_ms": .number(1_800_000),
        ]), retryAfter: nil)
        host.backend.answerResults(.status(409, body: [], retryAfter: nil))
        host.backend.releaseNext(screenshot)
        // The 409 reached the runtime once nothing is in flight: `next` waits for the clock.
        try await host.until("the first result answered") {
            let inFlight = (try? await host.live.requestsInFlight) ?? -1
            return host.backend.requests(to: "/v1/live/results").count == 1 && inFlight == 0
        }
        try await host.until("the notice shown") { host.notices.contains(.screenshot) }
        host.clock.advance(by: .milliseconds(300))
        try await host.until("next asked again") { host.backend.heldNextCount == 1 }
        host.backend.releaseNext(screenshot)
        try await host.until("the kept result sent again and answered") {
            let inFlight = (try? await host.live.requestsInFlight) ?? -1
            return host.backend.requests(to: "/v1/live/results").count == 2 && inFlight == 0
        }
        let results = host.backend.requests(to: "/v1/live/results")
        #expect(results[0].body == results[1].body)
        // The 409 is taken as done: nothing is resent after any backoff (well within the hello interval).
        host.clock.advance(by: .seconds(10))
        try await host.until("next asked again, and nothing else in flight") {
            let inFlight = (try? await host.live.requestsInFlight) ?? -1
            return host.backend.heldNextCount == 1 && inFlight == 1
        }
        #expect(host.backend.requests(to: "/v1/live/results").count == 2)

        // A 401 on next: the session ends without an ended body and a hello goes at once, tokenless.
        let hellosBefore = host.backend.requests(to: "/v1/live/hello").count
        host.backend.answerHellos(.status(200, json: .object(["viewers": .number(0)]), retryAfter: nil))
        host.backend.releaseNext(.status(401, body: [], retryAfter: nil))
        // No clock moves: the hello that follows is the immediate one, and it carries no token.
        try await host.until("an immediate hello without the token") {
            host.backend.requests(to: "/v1/live/hello").dropFirst(hellosBefore).contains { $0.request.token == nil }
        }
        try await host.until("the session ended for the token") { host.endings.contains("token_lost") }
        #expect(!host.backend.requests(to: "/v1/live/frames").contains { $0.body?["state"] == .string("ended") })

        // Allow-live off: nothing more leaves, whatever the clock does.
        _ = try await host.daemon.setAllowLive(false, apps: [Self.app])
        #expect(try await host.live.requestsInFlight == 0)
        // Whatever was already on the wire has arrived once the server holds no connection.
        try await host.settle()
        let count = host.backend.seen.count
        let sleeping = host.clock.sleeperCount
        host.clock.advance(by: .seconds(3600))
        // Every task the hour woke has done what it does and is asleep again: a runtime that
        // wrongly connected would have sent its request before that, or still have it in flight.
        try await host.until("every task the hour woke asleep again") { host.clock.sleeperCount >= sleeping }
        #expect(try await host.live.requestsInFlight == 0)
        #expect(host.backend.seen.count == count)
        }
    }

    /// "It MUST keep the day's count across launches, on disk"
    @Test func theDaysBytesAreOnDiskAndNoSecretIsWhenTheDaemonStops() async throws {
        try await Self.withHost { host in
            try await host.startSession()
            let spent = try await host.live.dayBytes
            #expect(spent.bytes > 0)
            await host.daemon.stop()
            #expect(try host.state.apps.dayBytes(for: Self.app) == spent)

            // Every request went over the socket with the app key; neither the proof, the token
            // nor the app key is in any file the daemon wrote, nor in its log.
            let keys = host.server.appKeysSeen
            #expect(!keys.isEmpty)
            #expect(keys.allSatisfy { $0 == Self.appKey })
            let proof = TesterProof(entryID: "qa-box-7", installationID: host.install, hashing: OpenSSLSHA256())
            let log = host.log.lines.joined(separator: "\n")
            #expect(!log.isEmpty)
            for secret in [proof.secretHex, LiveIntegrationTests.token, Self.appKey] { #expect(!log.contains(secret)) }
            let root = host.state.layout.root
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
            host.backend.releaseNext(.status(200, json: .object([
                "commands": .array([.object(["id": .string("r1"), "name": .string("raise_log_level"), "args": .object([:])])]),
                "viewers": .number(1),
            ]), retryAfter: nil))
            @Sendable func raisedUntil() async -> Int64? {
                (try? await host.daemon.status(apps: [Self.app]))?.apps.first?.logLevelRaisedUntilUnixMs
            }
            try await host.until("the level raised") { await raisedUntil() != nil }
            let until = try #require(await raisedUntil())
            #expect(until == host.clock.now().wallUnixMs + 1_800_000)
            try await host.until("the notice on the machine") { host.notices.contains(.raiseLogLevel) }
            _ = try await host.daemon.setConsent(.denied, apps: [Self.app])
            try await host.until("the level restored") { await raisedUntil() == nil }
        }
    }

    /// The wall clock set back an hour mid-session (an operator's `date -s`, an NTP step): the
    /// session, which runs on the monotonic clock, neither ends at once nor an hour late; lines go
    /// on streaming and the session ends at its 30 minutes.
    @Test func aWallClockSetBackAnHourChangesNothingOfTheSession() async throws {
        try await Self.withHost { host in
            try await host.startSession()
            host.clock.setWallClock(by: .seconds(-3600))
            try await host.journal.write([host.journal.entry(unit: Self.unit, message: "after the jump")])
            try await host.eventuallyAdvancing("the line streamed", by: .milliseconds(250)) {
                host.backend.requests(to: "/v1/live/frames").contains {
                    $0.body?["lines"]?.arrayValue?.contains { $0["body"] == .string("after the jump") } ?? false
                }
            }
            // 29 minutes of monotonic time later the session still runs...
            for _ in 0..<58 {
                host.clock.advance(by: .seconds(30))
                try await host.until("the runtime settled") { (try? await host.live.requestsInFlight) ?? 0 <= host.backend.heldNextCount }
            }
            #expect(host.endings.isEmpty, "ended early: \(host.endings)")
            #expect(try await host.live.isInSession)
            // ...and at its 30 minutes it ends, for `until`.
            try await host.eventuallyAdvancing("the session's end", by: .seconds(10)) { host.endings.contains("until") }
            #expect(host.endings == ["until"])
        }
    }

    @Test func aTokenlessHelloAnswerEndsTheSession() async throws {
        try await Self.withHost { host in
        try await host.startSession()
        host.backend.answerHellos(.status(200, json: .object(["viewers": .number(1)]), retryAfter: nil))
        host.clock.advance(by: .seconds(30))
        try await host.until("the session ended by the renewing hello") { host.endings.contains("token_lost") }
        try await host.until("the held next cancelled") { host.backend.cancelledNext >= 1 }
        }
    }
}
