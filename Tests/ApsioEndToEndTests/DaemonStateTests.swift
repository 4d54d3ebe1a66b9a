import ApsioAgent
import ApsioCore
import Foundation
@testable import ApsioTestSupport
import Testing
import ApsioLive

/// What the built `apsiod` keeps across a crash and what it gives up when an app goes:
/// the day's live bytes (16.3) and the installation id (LINUX-PROFILE §2).
@Suite(.serialized) struct DaemonStateTests {
    /// 16.3: the device "MUST keep the day's count across launches": a SIGKILL a moment after
    /// bodies went out finds every one of them counted on disk, so a crash is no way around the
    /// day's cap.
    @Test func theDaysLiveBytesSurviveSIGKILL() async throws {
        try await AgentHarness.with { h in
            try await h.serve(try h.policy())
            try await h.startLiveSession()
            // Lines keep the bodies coming, one a second at most.
            try await poll("four frames bodies", seconds: 60, every: .milliseconds(100)) {
                if h.framesBodies.count >= 4 { return true }
                try? await h.journal.write([h.journal.entry(unit: AgentHarness.unit, message: "busy \(h.framesBodies.count)")])
                return h.framesBodies.count >= 4
            }
            try await h.kill()
            let sent = h.backend.liveBodyBytes.filter { $0.path == "/v1/live/frames" || $0.path == "/v1/live/results" }
                .reduce(0) { $0 + $1.bytes }
            let saved = try #require(h.stateFile("day-bytes.json").flatMap { JSONValueEncoding.decode(Array($0.utf8)) })
            let counted = try #require(saved["bytes"]?.numberValue)
            #expect(Int(counted) >= sent, "the backend received \(sent) bytes of bodies, the disk counts \(counted)")
        }
    }

    /// An app removed and added again is a new install: a new `app.installation.id`, live
    /// inspection off. An app file that is only broken for a while is not removed, and neither is
    /// one removed while the daemon was stopped forgotten until it starts.
    @Test func anAppRemovedAndAddedAgainIsANewInstallAndABrokenOneIsNot() async throws {
        try await AgentHarness.with { h in
            try await h.serve(try h.policy(live: false))
            @Sendable func installationID() async throws -> String? {
                let run = try await h.ctl(["--json", "apps"])
                let apps = JSONValueEncoding.decode(Array(run.stdout.utf8))?["apps"]?.arrayValue ?? []
                return apps.first { $0["name"]?.stringValue == AgentHarness.app }?["installation_id"]?.stringValue
            }
            @Sendable func allowsLive() async throws -> Bool? {
                let run = try await h.ctl(["--json", "status", AgentHarness.app])
                return JSONValueEncoding.decode(Array(run.stdout.utf8))?["apps"]?.arrayValue?.first?["allow_live"]?.boolValue
            }
            let first = try #require(try await installationID())
            #expect(try await h.ctl(["allow-live", "on", AgentHarness.app]).status == 0)

            // Broken for a while, then mended: the same install, live still allowed.
            let appFile = h.config + "/apps.d/\(AgentHarness.app).conf"
            try "[App]\nUnit=\(AgentHarness.unit)\nFamlies=logs\n".write(toFile: appFile, atomically: true, encoding: .utf8)
            let broken = try await h.ctl(["reload"])
            #expect(broken.stdout.contains("\(AgentHarness.app).conf:3:"), "\(broken.stdout)")
            try h.writeApp()
            #expect(try await h.ctl(["reload"]).status == 0)
            try await h.waitServing()
            #expect(try await installationID() == first)
            #expect(try await allowsLive() == true)

            // Removed, then added again: another install, live off.
            try FileManager.default.removeItem(atPath: appFile)
            #expect(try await h.ctl(["reload"]).status == 0)
            #expect(!FileManager.default.fileExists(atPath: h.appStateDirectory), "the removed app's state is gone")
            try h.writeApp()
            #expect(try await h.ctl(["reload"]).status == 0)
            try await h.waitServing()
            let second = try #require(try await installationID())
            #expect(second != first)
            #expect(try await allowsLive() == false)

            // Removed while the daemon is stopped: forgotten when it starts.
            #expect(await h.stop() == 0)
            try FileManager.default.removeItem(atPath: appFile)
            try h.start()
            try await poll("the state of the removed app gone", seconds: 60, every: .milliseconds(100)) {
                !FileManager.default.fileExists(atPath: h.appStateDirectory)
            }
            try h.writeApp()
            #expect(try await h.ctl(["reload"]).status == 0)
            try await h.waitServing()
            let third = try #require(try await installationID())
            #expect(third != second)
            #expect(await h.stop() == 0)
        }
    }

    /// Two daemons never serve from one state directory: a second `apsiod` pointed at it (with its
    /// own runtime directory, so nothing else stands in its way) says why and exits 1, and the
    /// first goes on exporting. The queues hold no lock of their own any more (one descriptor for
    /// the directory, not one per app), so this is the one thing that keeps them apart.
    @Test func aSecondDaemonOnTheSameStateDirectoryIsRefusedAndTheFirstGoesOn() async throws {
        try await AgentHarness.with { h in
            try await h.serve(try h.policy(live: false))
            let otherRuntime = h.root.path + "/run-2"
            try FileManager.default.createDirectory(atPath: otherRuntime, withIntermediateDirectories: true)
            let second = try await CommandRun.run(
                BuiltBinaries.apsiod,
                ["--config-dir", h.config, "--state-dir", h.state, "--runtime-dir", otherRuntime,
                 "--journal-dir", h.journal.path],
                environment: ["DBUS_SYSTEM_BUS_ADDRESS": h.bus.address])
            #expect(second.status == 1)
            #expect(second.stderr.contains("another apsiod serves from this state directory"), "\(second.stderr)")
            #expect(second.stderr.contains(h.state + "/apsiod.lock"), "\(second.stderr)")
            #expect(!FileManager.default.fileExists(atPath: h.appStateDirectory + "/queue/lock"), "no lock per queue")

            try await h.journal.write([h.journal.entry(unit: AgentHarness.unit, message: "after the second daemon")])
            try await poll("the first daemon's line at the sink", seconds: 60, every: .milliseconds(100)) {
                h.backend.records.contains { $0.body == "after the second daemon" }
            }
            #expect(await h.stop() == 0)
        }
    }
}
