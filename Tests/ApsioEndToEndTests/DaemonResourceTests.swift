import ApsioAgent
import ApsioCore
import ApsioPlatform
import Foundation
@testable import ApsioTestSupport
import Testing
import ApsioLive

/// Spec 2 and 16.4 on the built `apsiod`: the Resource on every machine, where plain HTTP may go,
/// and who may see the installation id. The daemon runs in a mount namespace of its own
/// (`unshare --mount`, private propagation) where a test's file stands at `/etc/os-release` or
/// `/etc/hosts`: the machine's own are never touched.
@Suite(.serialized) struct DaemonResourceTests {
    /// `unshare` running the daemon's command with `file` mounted over each of `targets`.
    static func withFiles(_ mounts: [(file: String, targets: [String])]) -> [String] {
        let binds = mounts.flatMap { mount in mount.targets.map { "mount --bind '\(mount.file)' '\($0)'" } }
        return ["/usr/bin/unshare", "--mount", "/bin/sh", "-c", binds.joined(separator: " && ") + " && exec \"$0\" \"$@\""]
    }

    static let osReleases: [(text: String, name: String, version: String)] = [
        // Arch: no VERSION_ID, a BUILD_ID.
        ("NAME=\"Arch Linux\"\nPRETTY_NAME=\"Arch Linux\"\nID=arch\nBUILD_ID=rolling\n", "Arch Linux", "rolling"),
        // Debian sid: no version at all.
        ("PRETTY_NAME=\"Debian GNU/Linux trixie/sid\"\nNAME=\"Debian GNU/Linux\"\nVERSION_CODENAME=trixie\nID=debian\n",
         "Debian GNU/Linux", "unknown"),
        // No NAME: os-release(5) says Linux. VERSION without VERSION_ID.
        ("ID=custom\nVERSION=\"7 (Falcon)\"\n", "Linux", "7 (Falcon)"),
    ]

    /// 2.2: "MUST set os.name ... and os.version", on the Resource of every record and in the
    /// hello's `os`, whatever the machine's os-release leaves out.
    @Test(arguments: 0..<3)
    func osNameAndVersionAreAlwaysSet(_ index: Int) async throws {
        let release = Self.osReleases[index]
        try await AgentHarness.with { h in
            let file = try h.root.write("os-release", release.text).path
            try await h.serve(try h.policy(), wrapper: Self.withFiles([(file, ["/etc/os-release", "/usr/lib/os-release"])]))
            try await h.journal.write([h.journal.entry(unit: AgentHarness.unit, message: "a line")])
            try await poll("the line at the sink", seconds: 60, every: .milliseconds(100)) { h.backend.records.contains { $0.body == "a line" } }
            let record = try #require(h.backend.records.first { $0.body == "a line" })
            #expect(record.resource["os.name"] == release.name)
            #expect(record.resource["os.version"] == release.version)

            try await h.startLiveSession()
            let hello = try #require(h.hellos.first?.body)
            #expect(hello["os"] == .string("\(release.name) \(release.version)"))
        }
    }

    /// 16.4: plain `http://` only to loopback. `localhost` that a resolver maps elsewhere is
    /// refused with a clear error before anything is sent, the app key least of all.
    @Test func localhostThatResolvesElsewhereIsRefusedBeforeAnythingIsSent() async throws {
        try await AgentHarness.with { h in
            // 192.0.2.1 is TEST-NET-1: documentation only, never routed.
            let hosts = try h.root.write("hosts", "192.0.2.1 localhost\n127.0.0.1 loopback-only\n").path
            try h.root.write("etc/apps.d/\(AgentHarness.app).conf", """
                [App]
                Unit=\(AgentHarness.unit)
                Backend=http://localhost:\(h.backend.port)
                AppKey=\(AgentHarness.appKey)
                Consent=granted
                """)
            h.backend.setPolicy(try h.policy())
            try h.start(wrapper: Self.withFiles([(hosts, ["/etc/hosts"])]))
            try await poll("the refusal in the log", seconds: 60, every: .milliseconds(100)) {
                h.log.contains("localhost resolves to 192.0.2.1, which is not a loopback address")
            }
            #expect(h.backend.policyRequests == 0)
            #expect(h.backend.appKeysSeen.isEmpty)
            #expect(!h.log.contains(AgentHarness.appKey))
        }
    }

    /// The same for a live origin: the policy's `http://localhost` is refused before a hello goes,
    /// and the daemon says why.
    @Test func aLocalhostLiveOriginThatResolvesElsewhereIsRefusedToo() async throws {
        try await AgentHarness.with { h in
            let hosts = try h.root.write("hosts", "192.0.2.1 localhost\n").path
            try h.writeApp()
            var policy = try h.policy()
            if case .object(var members) = policy, case .object(var live)? = members["live"] {
                live["origin"] = .string("http://localhost:\(h.backend.port)")
                members["live"] = .object(live)
                policy = .object(members)
            }
            h.backend.setPolicy(policy)
            try h.start(wrapper: Self.withFiles([(hosts, ["/etc/hosts"])]))
            try await h.waitServing()
            #expect(try await h.ctl(["allow-live", "on", AgentHarness.app]).status == 0)
            try await h.activateUnit()
            try await poll("the refused hello in the log", seconds: 60, every: .milliseconds(100)) {
                h.log.contains("/v1/live/hello to http://localhost:\(h.backend.port) got no answer: localhost resolves to 192.0.2.1")
            }
            #expect(h.hellos.isEmpty)
        }
    }

    /// The installation id and a tester's id (which the policy publishes) make the tester's proof
    /// (16.1): other local users see the status, never the id.
    @Test func onlyRootAndTheGroupSeeTheInstallationID() async throws {
        try await AgentHarness.with { h in
            try await h.serve(try h.policy(live: false))
            let install = try h.installationID()

            let asRoot = try await h.ctl(["--json", "apps"])
            #expect(asRoot.stdout.contains(install))
            let asNobody = try await h.ctl(["--json", "apps"], user: "nobody")
            #expect(asNobody.status == 0, "\(asNobody.stderr)")
            #expect(!asNobody.stdout.contains(install))
            let app = JSONValueEncoding.decode(Array(asNobody.stdout.utf8))?["apps"]?.arrayValue?.first
            #expect(app?["installation_id_hidden"] == .bool(true))
            let text = try await h.ctl(["apps"], user: "nobody")
            #expect(!text.stdout.contains(install))
            #expect(text.stdout.contains("hidden"))
            let status = try await h.ctl(["status"], user: "nobody")
            #expect(status.status == 0 && !status.stdout.contains(install))
        }
    }

    /// LINUX-PROFILE §2 at start: a backlog waiting in the journal goes with the Resource of the
    /// unit's main executable (its package's version, its GNU build-id, which the symbol files
    /// carry), not with the stand-ins the app file gives before it is read, however slow systemd
    /// is to say which process runs the unit; and the hello's `release` is the records'
    /// `service.version` (16.4).
    @Test func theBacklogAtStartAndTheHelloGoWithTheMainExecutablesResource() async throws {
        let machine = try DaemonLiveCaptureTests.machine()
        let buildID = try #require(try ELFBuildID.read(path: "/bin/sleep"))
        let version = try #require(DpkgDatabase().package(owning: "/bin/sleep")?.version)
        try await AgentHarness.with { h in
            // No Version=: `service.version` is the package's.
            try h.root.write("etc/apps.d/\(AgentHarness.app).conf", """
                [App]
                Unit=\(AgentHarness.unit)
                Name=com.example.demo
                Backend=\(h.backend.origin)
                AppKey=\(AgentHarness.appKey)
                Consent=granted
                StartAt=head
                """)
            h.backend.setPolicy(try h.policy())
            h.live.answerHellos(AgentHarness.hello(viewers: 1))
            #expect(try await h.ctl(["allow-live", "on", AgentHarness.app]).status == 0)
            try await h.setUnit(
                [["ControlGroup", "s", SysfsFixture.unit], ["MainPID", "u", "100"]], on: SystemdMock.serviceInterface)
            try await h.activateUnit()
            // More than a batch: it would go at once.
            let backlog = (0..<1500).map { h.journal.entry(unit: AgentHarness.unit, message: "backlog \($0)") }
            try await h.journal.write(backlog)

            // systemd slow to answer: apsiod starts before it can learn what runs the unit.
            let systemd = try #require(h.bus.pid(SystemdMock.systemd))
            kill(systemd, SIGSTOP)
            do {
                try h.start(AgentHarness.reading(machine))
                try await poll("the backlog waiting, or sent", seconds: 60, every: .milliseconds(100)) {
                    h.log.contains("ingest and the hello wait for its unit's main executable") || !h.backend.records.isEmpty
                }
            } catch {
                kill(systemd, SIGCONT)
                throw error
            }
            kill(systemd, SIGCONT)

            try await poll("the backlog at the sink", seconds: 60, every: .milliseconds(100)) {
                Set(h.backend.records.map(\.body).filter { $0.hasPrefix("backlog ") }).count == backlog.count
            }
            let resources = Set(h.backend.records.map { [$0.resource["service.version"], $0.resource["app.build_id"]] })
            #expect(resources == [[version, buildID]], "every record with the executable's version and build-id")
            try await poll("a hello", seconds: 60, every: .milliseconds(100)) { !h.hellos.isEmpty }
            #expect(h.hellos.allSatisfy { $0.body?["release"] == .string(version) }, "the hello's release is service.version")
            #expect(!h.log.contains("was not read within"), "released by the read, not by the bound on the wait")
        }
    }
}
