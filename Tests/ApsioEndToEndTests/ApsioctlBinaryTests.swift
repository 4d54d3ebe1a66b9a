import ApsioAgent
import ApsioCore
import Foundation
import Testing
import ApsioState
@testable import ApsioTestSupport

/// The apsioctl binary of this build, run as an operator runs it: what only a process shows (its
/// exit status, its own stdout and stderr, the user it runs as). Every command's behaviour is
/// tested in process, in ApsioCtlTests.
@Suite struct ApsioctlBinaryTests {
    @Test func aCommandThatNeedsTheDaemonExitsThreeWithoutIt() async throws {
        let machine = try ApsioctlMachine()
        let result = try await Apsioctl.run(machine.options + ["status"])
        #expect(result.status == 3)
        #expect(result.stderr.contains("apsiod is not running"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        let json = try await Apsioctl.run(machine.options + ["--json", "status"])
        #expect(json.status == 3)
        #expect(json.json?["ok"] == .bool(false))
        #expect(json.json?["error"] == .string("not_running"))
    }

    @Test(arguments: [[], ["frobnicate"], ["--state-dir"]])
    func aBadCommandLineExitsTwo(_ arguments: [String]) async throws {
        let result = try await Apsioctl.run(arguments)
        #expect(result.status == 2, "\(arguments)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stdout.isEmpty)
    }

    @Test func versionNeedsNoDaemon() async throws {
        let machine = try ApsioctlMachine()
        // Packaging checks read exactly one line.
        let own = try await Apsioctl.run(machine.options + ["--version"])
        #expect(own.status == 0)
        #expect(own.stdout == "apsioctl \(ApsioVersion.current)\n")
        let help = try await Apsioctl.run(["status", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.hasPrefix("Usage: apsioctl status"))
    }

    /// Without the daemon apsioctl itself keeps the installation ids from users outside the group:
    /// the binary takes the caller's credentials from its process.
    @Test func withoutTheDaemonOnlyRootSeesTheInstallationIDs() async throws {
        let machine = try ApsioctlMachine()
        let id = try AppStateStore(layout: StateLayout(root: machine.state)).installationID(for: try AppName("nginx"))

        let json = try await Apsioctl.run(machine.options + ["--json", "apps"], asUser: "nobody")
        #expect(json.status == 0, "\(json.stderr)")
        let apps = try #require(json.json?["apps"]?.arrayValue)
        #expect(apps.map { $0["name"] } == [.string("api"), .string("nginx")])
        #expect(apps.allSatisfy { $0["installation_id"] == .null && $0["installation_id_hidden"] == .bool(true) })
        #expect(json.json?["daemon_running"] == .bool(false))

        let human = try await Apsioctl.run(machine.options + ["apps"], asUser: "nobody")
        #expect(human.status == 0, "\(human.stderr)")
        #expect(human.stdout.components(separatedBy: "installation id:  hidden (shown to root and members of the group apsio)").count == 3)
        #expect(!human.stdout.contains("none yet"))
        #expect(!human.stdout.contains(id))

        let root = try await Apsioctl.run(machine.options + ["--json", "apps"])
        let shown = try #require(root.json?["apps"]?.arrayValue)
        #expect(shown.map { $0["installation_id"] } == [.null, .string(id)])
        #expect(shown.allSatisfy { $0["installation_id_hidden"] == .bool(false) })
        let rootHuman = try await Apsioctl.run(machine.options + ["apps"])
        #expect(rootHuman.stdout.contains("installation id:  \(id)"))
    }

    /// The daemon's user owns the state and could read the ids there: apsioctl shows them to it,
    /// reading them with that user's own rights.
    @Test func withoutTheDaemonTheStatesOwnerSeesTheInstallationIDs() async throws {
        let machine = try ApsioctlMachine()
        let id = try AppStateStore(layout: StateLayout(root: machine.state)).installationID(for: try AppName("nginx"))
        for path in [machine.state, machine.state + "/apps", machine.state + "/apps/nginx", machine.state + "/apps/nginx/installation-id"] {
            try FileManager.default.setAttributes([.ownerAccountID: 65534], ofItemAtPath: path)
        }
        let run = try await Apsioctl.run(machine.options + ["--json", "apps"], asUser: "nobody")
        #expect(run.status == 0, "\(run.stderr)")
        let apps = try #require(run.json?["apps"]?.arrayValue)
        #expect(apps.map { $0["installation_id"] } == [.null, .string(id)])
        #expect(apps.allSatisfy { $0["installation_id_hidden"] == .bool(false) })
    }

    @Test func statusThroughTheDaemonsSocket() async throws {
        try await withControlServer { fixture in
            let options = ["--runtime-dir", fixture.directory.path]
            let status = try await Apsioctl.run(options + ["--json", "status", "nginx"])
            #expect(status.status == 0)
            let app = try #require(status.json?["apps"]?.arrayValue?.first)
            #expect(app["name"] == .string("nginx"))

            let human = try await Apsioctl.run(options + ["status"])
            #expect(human.status == 0)
            #expect(human.stdout.contains("nginx (nginx.service): active, live inspection off, consent not asked"))
            #expect(human.stdout.contains("Data Saver: off"))

            let unknown = try await Apsioctl.run(options + ["status", "redis"])
            #expect(unknown.status == 1)
        }
    }
}
