import ApsioAgent
import ApsioCore
import ApsioPlatform
import Foundation
@testable import ApsioTestSupport
import Testing
import ApsioLive

/// The configuration read again while apsiod runs: apps added and removed without a restart, a bad
/// app file reported with its path and line while the others keep running, its own unit refused.
@Suite(.serialized) struct DaemonReloadTests {
    static func appFile(unit: String) -> String {
        """
        [App]
        Unit=\(unit)
        Backend=http://127.0.0.1:9
        AppKey=apsio_app_reload_test
        Consent=granted
        """
    }

    @Test func reloadAddsAndRemovesAppsAndABadFileStopsOnlyItself() async throws {
        let root = try TemporaryDirectory("apsio-reload")
        let config = root.path + "/etc", state = root.path + "/state", runtime = root.path + "/run"
        try root.write("etc/apsiod.conf", "[Indicator]\nMotdFile=\nAnnounceTerminals=no\n")
        try root.write("etc/apps.d/web.conf", Self.appFile(unit: "web.service"))
        let journal = try JournalFixture()
        try await journal.write([journal.entry(unit: "web.service", message: "hello")])
        let directories = ["--config-dir", config, "--state-dir", state, "--runtime-dir", runtime]
        @Sendable func appNames() async throws -> [String] {
            let run = try await CommandRun.run(BuiltBinaries.apsioctl, directories + ["--json", "apps"])
            guard run.status == 0, let value = JSONValueEncoding.decode(Array(run.stdout.utf8)) else { return [] }
            // Without the daemon apsioctl lists the files it finds; the daemon alone knows the
            // service each app is served as, so only its answer counts here.
            let apps = value["apps"]?.arrayValue ?? []
            guard apps.allSatisfy({ $0["service_version"]?.stringValue != nil }) else { return [] }
            return apps.compactMap { $0["name"]?.stringValue }
        }

        let daemon = try RunningChild(
            BuiltBinaries.apsiod, directories + ["--journal-dir", journal.path],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(root.path)/no-bus"], directory: root.path, name: "apsiod")
        do {
            try await poll("apsiod serving web", seconds: 60, every: .milliseconds(100)) { (try? await appNames()) == ["web"] }

            // A new app, a broken one and one naming apsiod itself; `apsioctl reload` reports the two.
            try root.write("etc/apps.d/db.conf", Self.appFile(unit: "db.service"))
            try root.write("etc/apps.d/broken.conf", "[App]\nUnit=broken.service\nFamlies=logs\n")
            try root.write("etc/apps.d/self.conf", Self.appFile(unit: "apsiod.service"))
            let reload = try await CommandRun.run(BuiltBinaries.apsioctl, directories + ["reload"])
            #expect(reload.status == 0, "\(reload.stderr)")
            #expect(reload.stdout.contains("apps.d/broken.conf:3:"), "\(reload.stdout)")
            #expect(reload.stdout.contains("did you mean `Families`"))
            #expect(reload.stdout.contains("apps.d/self.conf"))
            try await poll("db served beside web", seconds: 30, every: .milliseconds(100)) { (try? await appNames()) == ["db", "web"] }

            // SIGHUP does the same: web's file removed, web no longer served; db untouched.
            try FileManager.default.removeItem(atPath: config + "/apps.d/web.conf")
            kill(daemon.process.processIdentifier, SIGHUP)
            try await poll("web gone after SIGHUP", seconds: 30, every: .milliseconds(100)) { (try? await appNames()) == ["db"] }
            #expect(daemon.isRunning)
            #expect(daemon.stderr.contains("apps.d/broken.conf:3:"), "problems go to the log too")
            #expect(await daemon.terminate() == 0)
        } catch {
            _ = await daemon.terminate()
            Issue.record("apsiod's log:\n\(daemon.stderr)")
            throw error
        }
    }

    /// What a team watching sees across a reload, from `seen` on: a hello, then a `frames` body
    /// saying `live`.
    static func helloThenLive(_ h: AgentHarness, after seen: Int) -> Bool {
        let after = h.live.seen.dropFirst(seen)
        guard let hello = after.firstIndex(where: { $0.request.path.hasPrefix("/v1/live/hello") }) else { return false }
        return after[hello...].contains {
            $0.request.path.hasPrefix("/v1/live/frames") && $0.body?["state"] == .string("live")
        }
    }

    /// A served app's file edited while a team watches it (a `Redact=` line, then `MinPriority=`)
    /// and read again: the app is restarted, and starts knowing its unit as the daemon does. A
    /// hello goes when its cadence allows (`DaemonReloadLiveMemoryTests`) and the session is live
    /// again, though the unit never changed, and the records keep the build id read from the
    /// unit's main executable.
    @Test func anEditedAppFileReloadedKeepsItsLiveSession() async throws {
        let machine = try DaemonLiveCaptureTests.machine()
        let sleepBuildID = try #require(try ELFBuildID.read(path: "/bin/sleep"))
        try await AgentHarness.with { h in
            try await h.serve(try h.policy(), arguments: AgentHarness.reading(machine))
            try await h.setUnit(
                [["ControlGroup", "s", SysfsFixture.unit], ["MainPID", "u", "100"]], on: SystemdMock.serviceInterface)
            try await h.startLiveSession()
            try await poll("the main executable read", seconds: 60, every: .milliseconds(100)) { (try? await h.servedResource().buildID) == sleepBuildID }

            for (step, edit) in ["Redact=order=[0-9]+", "Redact=order=[0-9]+\nMinPriority=info"].enumerated() {
                let seen = h.live.seen.count
                try h.writeApp(edit)
                let reload = try await h.ctl(["reload"])
                #expect(reload.status == 0, "\(reload.stderr)")
                try await poll("a hello and a live session again after reload \(step + 1)", seconds: 60, every: .milliseconds(100)) {
                    Self.helloThenLive(h, after: seen)
                }
                #expect(try await h.servedResource().buildID == sleepBuildID)
                let line = "written after reload \(step + 1)"
                try await h.journal.write([h.journal.entry(unit: AgentHarness.unit, message: line)])
                try await poll("\(line) at the sink", seconds: 60, every: .milliseconds(100)) { h.backend.records.contains { $0.body == line } }
                let record = try #require(h.backend.records.first { $0.body == line })
                #expect(record.resource["app.build_id"] == sleepBuildID)
                #expect(record.resource["service.version"] == "2.0.1")
            }
            #expect(h.log.contains("its unit's state and main executable carried over"), "the reload says what it kept")
        }
    }

    /// An app moved to another unit (`Unit=` edited) takes nothing of the old unit: it learns the
    /// new unit's state from the bus, and a team watching sees the session come back once that
    /// unit is active.
    @Test func anAppMovedToAnotherUnitLearnsItsStateFromTheBus() async throws {
        try await AgentHarness.with { h in
            let other = "demo-next.service"
            try await SystemdMock.addUnit(h.bus, other)
            try await SystemdMock.update(h.bus, other, [["ActiveState", "s", "active"], ["SubState", "s", "running"]])
            try await h.serve(try h.policy())
            try await h.startLiveSession()

            let seen = h.live.seen.count
            try h.root.write("etc/apps.d/\(AgentHarness.app).conf", try String(
                contentsOfFile: h.config + "/apps.d/\(AgentHarness.app).conf", encoding: .utf8
            ).replacingOccurrences(of: "Unit=\(AgentHarness.unit)", with: "Unit=\(other)"))
            let reload = try await h.ctl(["reload"])
            #expect(reload.status == 0, "\(reload.stderr)")
            try await poll("a hello and a live session on the new unit", seconds: 60, every: .milliseconds(100)) { Self.helloThenLive(h, after: seen) }
            let status = try await h.ctl(["--json", "status", AgentHarness.app])
            #expect(status.stdout.contains(other), "\(status.stdout)")
        }
    }

    /// The bus out of reach when a reload makes the daemon follow another set of units (an app
    /// added): what it read before is no longer known, so the app served meanwhile is in the
    /// background, as at a start without a bus, and a team watching it sees the session close,
    /// rather than a unit that may have stopped long ago still shown active.
    @Test func unitsFollowedAgainWithoutABusAreUnknown() async throws {
        try await AgentHarness.with { h in
            try await h.serve(try h.policy())
            try await h.startLiveSession()
            #expect(try await h.foreground() == "active")

            // dbus-daemon goes on serving the connection it has; a new one finds no socket.
            #expect(unlink(h.bus.socketPath) == 0)
            try h.root.write("etc/apps.d/extra.conf", """
                [App]
                Unit=extra.service
                Backend=\(h.backend.origin)
                AppKey=\(AgentHarness.appKey)
                Consent=granted
                """)
            let reload = try await h.ctl(["reload"])
            #expect(reload.status == 0, "\(reload.stderr)")
            try await poll("demo in the background", seconds: 60, every: .milliseconds(100)) { (try? await h.foreground()) == "background" }
            try await poll("the session's next let go", seconds: 60, every: .milliseconds(100)) { h.live.heldNextCount == 0 && h.live.cancelledNext >= 1 }
        }
    }
}
