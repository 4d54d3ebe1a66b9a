import ApsioAgent
import ApsioBackend
import ApsioCore
import ApsioJSON
import ApsioNet
import Foundation
@testable import ApsioTestSupport
import Testing
import ApsioState

/// The product as an operator runs it: the built `apsiod` and `apsioctl` binaries, the development
/// backend on loopback, a journal directory fed by systemd-journal-remote and the unit's state on
/// python-dbusmock (TESTING.md). Real time: the daemon runs on its own clock.
@Suite(.serialized) struct DaemonEndToEndTests {
    static let unit = "demo.service"
    static let appKey = "apsio_app_daemon_end_to_end"

    @Test func theOperatorAllowsLiveAndTheTeamWatchesThenLeaves() async throws {
        let root = try TemporaryDirectory("apsio-daemon")
        let config = root.path + "/etc", state = root.path + "/state", runtime = root.path + "/run"
        let motd = root.path + "/motd.d/50-apsio"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        // Anyone may read the status: the socket's directory must let a non-member reach it.
        chmod(root.path, 0o755)
        chmod(runtime, 0o755)

        // The install id exists before the backend is told of the tester, as on a real box where
        // the team reads it from `apsioctl apps`.
        let install = try AppStateStore(layout: StateLayout(root: state)).installationID(for: AppName("demo"))

        let bus = try DBusMockFixture()
        defer { bus.stopAll() }
        try await bus.startTemplate("systemd", busName: SystemdMock.systemd)
        try await SystemdMock.addUnit(bus, Self.unit)
        try await SystemdMock.update(bus, Self.unit, [["ActiveState", "s", "active"], ["SubState", "s", "running"]])
        let journal = try JournalFixture()
        try await journal.write([journal.entry(unit: Self.unit, message: "before apsiod started")])

        let sha = OpenSSLSHA256()
        let proof = TesterProof(entryID: "qa-box-7", installationID: install, hashing: sha)
        let port = try freeLoopbackPort()
        let backend = try BackendServer(
            configuration: BackendConfiguration(
                listenHost: "127.0.0.1", listenPort: port,
                hub: HubConfiguration(
                    origin: LiveOrigin("http://127.0.0.1:\(port)")!, interval: .seconds(15),
                    apps: [HubApp(name: "demo", appKey: Self.appKey, testers: [
                        TesterEntry(id: "qa-box-7", match: proof.match(hashing: sha), expiresAt: 4_000_000_000)
                    ])]),
                development: true),
            accounts: AccountsFile(accounts: [
                Account(user: "ann", role: .admin, password: PasswordHash(password: "ann-password", iterations: 1000))
            ]))
        _ = try await backend.start()

        try root.write("etc/apsiod.conf", """
            [Indicator]
            MotdFile=\(motd)
            AnnounceTerminals=no
            """)
        try root.write("etc/apps.d/demo.conf", """
            [App]
            Unit=\(Self.unit)
            Name=com.example.demo
            Version=2.0.1
            Backend=http://127.0.0.1:\(port)
            AppKey=\(Self.appKey)
            Consent=granted
            """)
        let directories = ["--config-dir", config, "--state-dir", state, "--runtime-dir", runtime]
        @Sendable func ctl(_ arguments: [String], user: String? = nil) async throws -> CommandRun {
            try await CommandRun.run(BuiltBinaries.apsioctl, directories + arguments, user: user)
        }

        // allow-live given before the daemon runs: stored, and applied at its start.
        let allow = try await ctl(["allow-live", "on", "demo"])
        #expect(allow.status == 0, "\(allow.stderr)")

        // As systemd would run it: a notify socket, and a watchdog of 2 s.
        let notify = try NotifySocket(directory: root.path)
        defer { notify.stop() }
        let daemon = try RunningChild(
            BuiltBinaries.apsiod, directories + ["--journal-dir", journal.path, "--log-level", "debug"],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "2000000"],
            directory: root.path, name: "apsiod")
        let viewer = try ViewerAPI(port: port)
        @Sendable func api(_ method: String, _ path: String, _ bearer: String?, _ body: JSONValue? = nil) async throws -> (Int, JSONValue) {
            try await viewer.call(method, path, bearer, body)
        }

        do {
            try await poll("apsiod answering on its socket", seconds: 60, every: .milliseconds(100)) { (try? await ctl(["status"]))?.status == 0 }
            try await poll("READY=1 once the socket answers", seconds: 30, every: .milliseconds(100)) { notify.messages.contains { $0.contains("READY=1") } }
            try await poll("the watchdog's keep-alives", seconds: 30, every: .milliseconds(100)) { notify.messages.filter { $0 == "WATCHDOG=1" }.count >= 2 }

            // The device says hello; a person signs in and watches it.
            let login = try await api("POST", "/api/login", nil, .object(["user": .string("ann"), "password": .string("ann-password")]))
            let ann = try #require(login.1["token"]?.stringValue)
            try await poll("the device present at the backend", seconds: 60, every: .milliseconds(100)) {
                let devices = try? await api("GET", "/api/devices", ann)
                return devices?.1["devices"]?.arrayValue?.contains { $0["install"]?.stringValue == install } ?? false
            }
            #expect(try await api("POST", "/api/devices/\(install)/watch", ann).0 == 200)

            // The next hello (at most interval_s later) finds the viewer: the machine says so.
            try await poll("apsioctl status showing the viewer", seconds: 90, every: .milliseconds(100)) {
                let status = try? await ctl(["status"])
                return status?.stdout.contains("Your team is viewing demo live") ?? false
            }
            try await poll("systemctl status saying it", seconds: 30, every: .milliseconds(100)) {
                notify.messages.contains { $0.contains("STATUS=Your team is viewing demo live") }
            }
            #expect(FileManager.default.fileExists(atPath: motd), "the motd file names the watched app")
            #expect((try? String(contentsOfFile: motd, encoding: .utf8))?.contains("demo") == true)

            let watch = try RunningChild(
                BuiltBinaries.apsioctl, directories + ["--json", "watch", "demo"], environment: [:], directory: root.path,
                name: "watch")
            try await poll("apsioctl watch following", seconds: 30, every: .milliseconds(100)) { watch.stdout.contains("\"status\"") }

            // The unit writes; the person's stream shows the line.
            try await journal.write([journal.entry(unit: Self.unit, message: "order 1234 shipped")])
            let stream = ViewerStream(viewer, install: install, bearer: ann)
            try await poll("the line in the viewer's stream", seconds: 60, every: .milliseconds(100)) {
                await stream.contains { event in
                    (event["frames"]?["lines"]?.arrayValue ?? event["lines"]?.arrayValue ?? [])
                        .contains { $0["body"] == .string("order 1234 shipped") }
                }
            }

            // A screenshot: the result reaches the viewer, the notice reaches `apsioctl watch`.
            let command = try await api("POST", "/api/devices/\(install)/commands", ann, .object(["name": .string("screenshot")]))
            #expect((200..<300).contains(command.0))
            try await poll("the screenshot's result in the stream", seconds: 60, every: .milliseconds(100)) {
                await stream.contains { $0["type"] == .string("result") }
            }
            try await poll("the notice in apsioctl watch", seconds: 30, every: .milliseconds(100)) {
                watch.stdout.contains("\"notice\"") && watch.stdout.contains("\"screenshot\"")
            }

            // A non-member reads the status but cannot change a setting.
            let nobodyStatus = try await ctl(["status"], user: "nobody")
            #expect(nobodyStatus.status == 0, "\(nobodyStatus.stderr)")
            let nobodyChange = try await ctl(["allow-live", "off", "demo"], user: "nobody")
            #expect(nobodyChange.status == 1)
            #expect(!nobodyChange.stderr.isEmpty)

            // The viewer leaves: the indicator goes everywhere.
            #expect(try await api("DELETE", "/api/devices/\(install)/watch", ann).0 == 200)
            try await poll("apsioctl status without the viewer", seconds: 90, every: .milliseconds(100)) {
                let status = try? await ctl(["status"])
                return status.map { $0.status == 0 && !$0.stdout.contains("Your team is viewing demo live") } ?? false
            }
            try await poll("the motd file removed", seconds: 30, every: .milliseconds(100)) { !FileManager.default.fileExists(atPath: motd) }
            _ = await watch.terminate()

            #expect(await daemon.terminate() == 0, "SIGTERM is a clean stop")
            #expect(notify.messages.contains { $0.hasPrefix("STOPPING=1") })
            // No secret in the daemon's output or its state.
            #expect(!daemon.stderr.contains(Self.appKey))
            let stateFiles = FileManager.default.enumerator(atPath: state)?.compactMap { $0 as? String } ?? []
            for file in stateFiles {
                let data = (try? Data(contentsOf: URL(fileURLWithPath: state + "/" + file))) ?? Data()
                #expect(String(decoding: data, as: UTF8.self).contains(Self.appKey) == false, "\(file) holds the app key")
            }
        } catch {
            _ = await daemon.terminate()
            await backend.stop()
            Issue.record("apsiod's log:\n\(daemon.stderr)")
            throw error
        }
        await backend.stop()
    }
}
