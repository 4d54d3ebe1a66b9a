import ApsioAgent
import ApsioCore
import ApsioJSON
import ApsioNet
import Foundation
import Glibc
@testable import ApsioTestSupport
import Testing
import ApsioState
import ApsioLive

/// The built `apsiod` as an operator runs it, on the simulated host of TESTING.md: real journal
/// files written by systemd-journal-remote, the unit's state on python-dbusmock's systemd, and a
/// scripted backend on loopback (policy, ingest sink, live channel). Real time: the daemon runs
/// on its own clock, and tests wait for what it does, never for how long it takes.
///
/// One app, `demo`, watching `demo.service`. Everything it starts is stopped by `close()`.
final class AgentHarness: @unchecked Sendable {
    static let app = "demo"
    static let unit = "demo.service"
    static let appKey = "apsio_app_promises_2f7c9e"
    static let tester = "qa-box-7"
    static let token = String(repeating: "c3", count: 32)
    static let otherToken = String(repeating: "e5", count: 32)

    let root: TemporaryDirectory
    let bus: DBusMockFixture
    let journal: JournalFixture
    let backend: ScriptedBackendServer
    var live: ScriptedLiveBackend { backend.script }
    private(set) var daemon: RunningChild?
    private var runs = 0

    var config: String { root.path + "/etc" }
    var state: String { root.path + "/state" }
    var runtime: String { root.path + "/run" }
    var directories: [String] { ["--config-dir", config, "--state-dir", state, "--runtime-dir", runtime] }
    var appStateDirectory: String { state + "/apps/" + Self.app }

    /// A fresh state directory: no installation id yet, no saved position.
    init() async throws {
        root = try TemporaryDirectory("apsio-e2e")
        try FileManager.default.createDirectory(atPath: root.path + "/state", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root.path + "/run", withIntermediateDirectories: true)
        // Anyone may read the status: the socket's directory must let a non-member reach it.
        chmod(root.path, 0o755)
        chmod(root.path + "/run", 0o755)
        try root.write("etc/apsiod.conf", "[Indicator]\nMotdFile=\(root.path)/motd\nAnnounceTerminals=no\n")
        bus = try DBusMockFixture()
        journal = try JournalFixture()
        backend = try await ScriptedBackendServer()
        do {
            try await bus.startTemplate("systemd", busName: SystemdMock.systemd)
            try await SystemdMock.addUnit(bus, Self.unit)
        } catch {
            await close()
            throw error
        }
    }

    // MARK: The app and its backend

    /// `apps.d/demo.conf`, with `extra` lines after the usual ones (at the lines tests expect them).
    /// Its `Encoding=`, after them, is
    /// `APSIO_TEST_ENCODING`'s when that is set and `extra` names none: the whole suite runs with
    /// either encoding (protobuf by default, `APSIO_TEST_ENCODING=json`), the scripted backend
    /// reading both.
    func writeApp(_ extra: String = "", backendOrigin: String? = nil) throws {
        let encoding = ProcessInfo.processInfo.environment["APSIO_TEST_ENCODING"].flatMap { chosen in
            extra.contains("Encoding=") ? nil : "Encoding=\(chosen)"
        }
        try root.write("etc/apps.d/\(Self.app).conf", """
            [App]
            Unit=\(Self.unit)
            Name=com.example.demo
            Version=2.0.1
            Backend=\(backendOrigin ?? backend.origin)
            AppKey=\(Self.appKey)
            Consent=granted
            \(extra)
            \(encoding ?? "")
            """)
    }

    /// The installation id, made now as the daemon would if it has not made one: the team reads it
    /// with `apsioctl apps` to list the box as a tester.
    func installationID() throws -> String {
        try AppStateStore(layout: StateLayout(root: state)).installationID(for: AppName(Self.app))
    }

    /// A policy as the backend sends it; with `live`, pointing at this backend (or at `origin`, a
    /// front of it) and listing this install as a tester.
    func policy(
        capture: [String: JSONValue] = [:], sessionRate: Double = 1, live: Bool = true, interval: Int = 30,
        origin: String? = nil
    ) throws -> JSONValue {
        var members: [String: JSONValue] = [
            "refresh_s": .number(3600), "kill_switch": .bool(false), "capture": .object(capture),
            "sampling": .object(["session_rate": .number(sessionRate)]),
        ]
        if live {
            let sha = OpenSSLSHA256()
            let proof = TesterProof(entryID: Self.tester, installationID: try installationID(), hashing: sha)
            members["live"] = .object([
                "origin": .string(origin ?? backend.origin), "interval_s": .number(Double(interval)),
                "testers": .array([.object([
                    "id": .string(Self.tester), "match": .string(proof.match(hashing: sha)),
                    "expires_at": .number(4_000_000_000),
                ])]),
            ])
        }
        return .object(members)
    }

    // MARK: The daemon

    /// Starts `apsiod`. `wrapper`: a command line the daemon's is appended to (unshare, to give it
    /// other files at /etc). `environment` adds to the daemon's. `systemJournal`: without
    /// `--journal-dir`, for a wrapper that puts journal files where the system journal's are.
    func start(
        _ arguments: [String] = [], wrapper: [String] = [], environment: [String: String] = [:], systemJournal: Bool = false
    ) throws {
        runs += 1
        let journalArguments = systemJournal ? [] : ["--journal-dir", journal.path]
        let command = [BuiltBinaries.apsiod] + directories + journalArguments + ["--log-level", "debug"] + arguments
        let full = wrapper + command
        daemon = try RunningChild(
            full[0], Array(full.dropFirst()),
            environment: environment.merging(["DBUS_SYSTEM_BUS_ADDRESS": bus.address]) { mine, _ in mine },
            directory: root.path, name: "apsiod-\(runs)")
    }

    /// SIGKILL: no cleanup of any kind, as a crash or the OOM killer ends it.
    func kill() async throws {
        guard let daemon else { return }
        Glibc.kill(daemon.process.processIdentifier, SIGKILL)
        try await poll("apsiod gone after SIGKILL", seconds: 30, every: .milliseconds(100)) { !daemon.isRunning }
    }

    /// SIGTERM; the exit status.
    @discardableResult
    func stop() async -> Int32 {
        guard let daemon else { return 0 }
        return await daemon.terminate()
    }

    var log: String { daemon?.stderr ?? "" }

    /// Every log the runs so far wrote.
    var allLogs: String {
        (1...max(runs, 1)).map { (try? String(contentsOfFile: root.path + "/apsiod-\($0).err", encoding: .utf8)) ?? "" }
            .joined(separator: "\n")
    }

    func ctl(_ arguments: [String], user: String? = nil) async throws -> CommandRun {
        try await CommandRun.run(BuiltBinaries.apsioctl, directories + arguments, user: user)
    }

    /// The app file with `appFile` lines, the backend answering `policy`, and `apsiod` started
    /// with `arguments` (under `wrapper`) and serving the app.
    func serve(
        _ policy: JSONValue, appFile: String = "", arguments: [String] = [], wrapper: [String] = [],
        environment: [String: String] = [:]
    ) async throws {
        try writeApp(appFile)
        backend.setPolicy(policy)
        try start(arguments, wrapper: wrapper, environment: environment)
        try await waitServing()
    }

    /// The options that make the daemon read `machine`'s sysfs and procfs.
    static func reading(_ machine: SysfsFixture) -> [String] {
        ["--sysfs", machine.roots.sysfs, "--procfs", machine.roots.procfs]
    }

    /// Until apsiod answers on its socket and serves the app (the daemon alone knows the version
    /// it serves it as).
    func waitServing() async throws {
        try await poll("apsiod serving \(Self.app)", seconds: 60, every: .milliseconds(100)) {
            guard let run = try? await self.ctl(["--json", "apps"]), run.status == 0,
                let value = JSONValueEncoding.decode(Array(run.stdout.utf8))
            else { return false }
            return value["apps"]?.arrayValue?.contains {
                $0["name"]?.stringValue == Self.app && $0["service_version"]?.stringValue != nil
            } ?? false
        }
    }

    /// `service.version` and `app.build_id` as the daemon serves the app now (`apsioctl apps`).
    func servedResource() async throws -> (version: String?, buildID: String?) {
        let run = try await ctl(["--json", "apps"])
        let app = JSONValueEncoding.decode(Array(run.stdout.utf8))?["apps"]?.arrayValue?.first {
            $0["name"]?.stringValue == Self.app
        }
        return (app?["service_version"]?.stringValue, app?["build_id"]?.stringValue)
    }

    /// The app's foreground as `apsioctl status` shows it ("active", "background", …); nil while
    /// the daemon does not answer.
    func foreground() async throws -> String? {
        try await appStatus()?["foreground"]?.stringValue
    }

    /// Until when (Unix ms) `apsioctl status` says the live backend asked for nothing.
    func liveHeldUntil() async throws -> Int64? {
        try await appStatus()?["live_held_until"]?.numberValue.map(Int64.init)
    }

    /// An app's entry in `apsioctl --json status`; nil while the daemon does not answer.
    func appStatus(of app: String = AgentHarness.app) async throws -> JSONValue? {
        let run = try await ctl(["--json", "status", app])
        return JSONValueEncoding.decode(Array(run.stdout.utf8))?["apps"]?.arrayValue?.first
    }

    // MARK: The unit

    func setUnit(_ entries: [[String]], on interface: String = SystemdMock.unitInterface) async throws {
        try await SystemdMock.update(bus, Self.unit, entries, on: interface)
    }

    func activateUnit() async throws {
        try await setUnit([["ActiveState", "s", "active"], ["SubState", "s", "running"]])
    }

    // MARK: Live

    static func hello(viewers: Int, token: String? = AgentHarness.token, interval: Int = 15) -> LiveResponse {
        var members: [String: JSONValue] = ["viewers": .number(Double(viewers)), "interval_s": .number(Double(interval))]
        if let token { members["device_token"] = .string(token) }
        return .status(200, json: .object(members), retryAfter: nil)
    }

    static func next(commands: [(id: String, name: String)] = [], viewers: Int = 1) -> LiveResponse {
        .status(200, json: .object([
            "commands": .array(commands.map { .object(["id": .string($0.id), "name": .string($0.name), "args": .object([:])]) }),
            "viewers": .number(Double(viewers)), "until": .number(4_000_000_000_000), "remaining_ms": .number(1_800_000),
            "stop": .null,
        ]), retryAfter: nil)
    }

    /// allow-live on, the unit active, and hellos answered with a viewer: the session starts and
    /// holds a `next`. The daemon must be serving already.
    /// `interval`: the hello answers' `interval_s`.
    func startLiveSession(interval: Int = 15) async throws {
        live.answerHellos(Self.hello(viewers: 1, interval: interval))
        let allow = try await ctl(["allow-live", "on", Self.app])
        #expect(allow.status == 0, "\(allow.stderr)")
        try await activateUnit()
        try await poll("the live session started, next held", seconds: 60, every: .milliseconds(100)) {
            self.framesBodies.contains { $0["state"] == .string("live") } && self.live.heldNextCount == 1
        }
    }

    var framesBodies: [JSONValue] { live.requests(to: "/v1/live/frames").compactMap(\.body) }
    var resultsBodies: [JSONValue] { live.requests(to: "/v1/live/results").compactMap(\.body) }
    var hellos: [ScriptedLiveBackend.Seen] { live.requests(to: "/v1/live/hello") }

    /// The live requests of any kind that arrived from `start` on and before `end`.
    func liveArrivals(from start: ContinuousClock.Instant, before end: ContinuousClock.Instant) -> [ScriptedLiveBackend.Seen] {
        live.seen.filter { $0.arrivedAt >= start && $0.arrivedAt < end }
    }

    /// Every streamed line's body, in order.
    var streamedLines: [String] {
        framesBodies.flatMap { $0["lines"]?.arrayValue ?? [] }.compactMap { $0["body"]?.stringValue }
    }

    /// Runs one command through `next` and waits for its result.
    func run(command name: String, id: String) async throws -> JSONValue {
        try await poll("next held", seconds: 30, every: .milliseconds(100)) { self.live.heldNextCount == 1 }
        live.releaseNext(Self.next(commands: [(id, name)]))
        try await poll("the result of \(name)", seconds: 60, every: .milliseconds(100)) { self.resultsBodies.contains { $0["id"] == .string(id) } }
        return try #require(resultsBodies.first { $0["id"] == .string(id) })
    }

    func close() async {
        if let daemon, daemon.isRunning { _ = await daemon.terminate() }
        await backend.stop()
        bus.stopAll()
    }

    /// Runs `body` on a fresh harness, and stops everything it started either way; on failure the
    /// daemon's log goes into the test's report.
    static func with(_ body: (AgentHarness) async throws -> Void) async throws {
        let harness = try await AgentHarness()
        do {
            try await body(harness)
        } catch {
            // Where each app's ingest stood, when the daemon still answers: a wait that timed out
            // says what it waited for, and this says how far each app got.
            let status = (try? await CommandRun.run(
                BuiltBinaries.apsioctl, harness.directories + ["--json", "status"], deadline: .seconds(10)))?.stdout
                ?? "(no answer)"
            Issue.record("apsiod's log:\n\(harness.allLogs)\napsioctl --json status:\n\(status)")
            await harness.close()
            throw error
        }
        await harness.close()
    }
}

/// A state file of the app's, as the daemon left it.
extension AgentHarness {
    /// An app's ingest as `apsioctl status` shows it.
    func ingestStatus(of app: String = AgentHarness.app) async throws -> JSONValue? {
        try await appStatus(of: app)?["ingest"]
    }

    func stateFile(_ name: String) -> String? {
        try? String(contentsOfFile: appStateDirectory + "/" + name, encoding: .utf8)
    }
}
