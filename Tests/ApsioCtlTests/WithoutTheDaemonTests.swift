import ApsioControl
import ApsioCore
import ApsioState
import Foundation
import Testing
@testable import ApsioTestSupport

/// apsioctl on a machine where apsiod is not running: what needs the daemon says so, settings go
/// into the state directory for its next start, and `apps` reads the app files.
@Suite struct WithoutTheDaemonTests {
    @Test(arguments: [["status"], ["watch"], ["reload"], ["status", "nginx"]])
    func aCommandThatNeedsTheDaemonExitsThreeWithoutIt(_ command: [String]) async throws {
        let machine = try ApsioctlMachine()
        let result = await CtlRun.run(machine.options + command)
        #expect(result.status == 3)
        #expect(result.stderr.contains("apsiod is not running"))
        #expect(result.stderr.contains("start it with 'systemctl start apsiod'"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stdout.isEmpty)
        let json = await CtlRun.run(machine.options + ["--json"] + command)
        #expect(json.status == 3)
        #expect(json.json?["ok"] == .bool(false))
        #expect(json.json?["error"] == .string("not_running"))
    }

    @Test func settingsAreStoredWhereTheDaemonReadsThem() async throws {
        let machine = try ApsioctlMachine()
        let allow = await CtlRun.run(machine.options + ["allow-live", "on"])
        #expect(allow.status == 0, "\(allow.stderr)")
        #expect(allow.stdout == "Live inspection allowed for api, nginx (apsiod is not running: it takes effect when apsiod starts)\n")
        let deny = await CtlRun.run(machine.options + ["consent", "deny", "api"])
        #expect(deny.status == 0, "\(deny.stderr)")
        let saver = await CtlRun.run(machine.options + ["--json", "data-saver", "on"])
        #expect(saver.status == 0)
        #expect(saver.json == .object(["ok": .bool(true), "data_saver": .bool(true), "daemon_running": .bool(false)]))

        let settings = try machine.settings
        #expect(settings.allowsLive(try AppName("nginx")))
        #expect(settings.allowsLive(try AppName("api")))
        #expect(!settings.allowsLive(try AppName("old")))
        #expect(settings.consentOverride(try AppName("api")) == .denied)
        #expect(settings.consentOverride(try AppName("nginx")) == nil)
        #expect(settings.dataSaver)
    }

    @Test func anAppWithoutAnAppFileIsRefused() async throws {
        let machine = try ApsioctlMachine()
        let result = await CtlRun.run(machine.options + ["allow-live", "on", "redis"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("redis"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(try machine.settings == OperatorSettings())
    }

    @Test func aMissingStateDirectoryIsNamed() async throws {
        let machine = try ApsioctlMachine()
        let missing = machine.root.path + "/no-state"
        let result = await CtlRun.run(["--runtime-dir", machine.runtime, "--state-dir", missing, "--config-dir", machine.config, "data-saver", "on"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("the state directory \(missing) does not exist"))
    }

    @Test func settingsWrittenAsRootBelongToTheStateDirectorysOwner() async throws {
        let machine = try ApsioctlMachine()
        // The daemon's user and group own the state directory on an installed machine.
        try FileManager.default.setAttributes([.ownerAccountID: 65534, .groupOwnerAccountID: 65534], ofItemAtPath: machine.state)
        let result = await CtlRun.run(machine.options + ["allow-live", "on", "nginx"])
        #expect(result.status == 0, "\(result.stderr)")
        for file in ["settings.json", "settings.lock"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: machine.state + "/" + file)
            #expect(attributes[.ownerAccountID] as? Int == 65534, "\(file)")
            #expect(attributes[.groupOwnerAccountID] as? Int == 65534, "\(file)")
            #expect(attributes[.posixPermissions] as? Int == 0o660, "\(file)")
        }
    }

    @Test func appsListsTheAppFilesAndTheKeptInstallationIDs() async throws {
        let machine = try ApsioctlMachine()
        let id = try AppStateStore(layout: StateLayout(root: machine.state)).installationID(for: try AppName("nginx"))
        let result = await CtlRun.run(machine.options + ["--json", "apps"])
        #expect(result.status == 0)
        let apps = try #require(result.json?["apps"]?.arrayValue)
        #expect(apps.map { $0["name"] } == [.string("api"), .string("nginx")])
        #expect(apps.map { $0["installation_id"] } == [.null, .string(id)])
        #expect(apps.allSatisfy { $0["unit"] == .null && $0["installation_id_hidden"] == .bool(false) })
        #expect(result.json?["daemon_running"] == .bool(false))
        let human = await CtlRun.run(machine.options + ["apps"])
        #expect(human.status == 0)
        #expect(human.stdout.contains("installation id:  \(id)"))
        #expect(human.stdout.contains("installation id:  none yet (apsiod makes it when it first serves the app)"))
        #expect(human.stderr == "apsioctl: apsiod is not running: showing the app files and the installation ids kept on disk\n")
    }

    @Test func appsWithoutAnAppFileSaysWhere() async throws {
        let machine = try ApsioctlMachine()
        for app in ["nginx", "api"] { try FileManager.default.removeItem(atPath: machine.config + "/apps.d/\(app).conf") }
        let result = await CtlRun.run(machine.options + ["apps"])
        #expect(result.status == 0)
        #expect(result.stdout == "No app is configured in \(machine.config)/apps.d\n")
    }

    /// The caller's own credentials decide, as the daemon's would: the binary's test of the same
    /// runs it as nobody (ApsioEndToEndTests' ApsioctlBinaryTests).
    @Test func onlyRootAndTheAdminGroupSeeTheInstallationIDs() async throws {
        let machine = try ApsioctlMachine()
        let id = try AppStateStore(layout: StateLayout(root: machine.state)).installationID(for: try AppName("nginx"))
        let json = await CtlRun.run(machine.options + ["--json", "apps"], caller: CtlRun.nobody)
        #expect(json.status == 0, "\(json.stderr)")
        let apps = try #require(json.json?["apps"]?.arrayValue)
        #expect(apps.map { $0["name"] } == [.string("api"), .string("nginx")])
        #expect(apps.allSatisfy { $0["installation_id"] == .null && $0["installation_id_hidden"] == .bool(true) })
        #expect(!json.stdout.contains(id))

        let human = await CtlRun.run(machine.options + ["apps"], caller: CtlRun.nobody)
        #expect(human.stdout.components(separatedBy: "installation id:  hidden (shown to root and members of the group apsio)").count == 3)
        #expect(!human.stdout.contains("none yet"))
        #expect(!human.stdout.contains(id))
        #expect(human.stderr == "apsioctl: apsiod is not running: showing the app files\n")
    }

    @Test func theStatesOwnerSeesTheInstallationIDs() async throws {
        let machine = try ApsioctlMachine()
        let id = try AppStateStore(layout: StateLayout(root: machine.state)).installationID(for: try AppName("nginx"))
        try FileManager.default.setAttributes([.ownerAccountID: 65534], ofItemAtPath: machine.state)
        let run = await CtlRun.run(machine.options + ["--json", "apps"], caller: CtlRun.nobody)
        let apps = try #require(run.json?["apps"]?.arrayValue)
        #expect(apps.map { $0["installation_id"] } == [.null, .string(id)])
        #expect(apps.allSatisfy { $0["installation_id_hidden"] == .bool(false) })
    }

    /// A daemon holds its state directory's lock while it runs, socket or none: a change is then
    /// not stored for "the next start", where it would not apply while that daemon runs.
    @Test func nothingIsStoredWhileADaemonHoldsTheStateDirectory() async throws {
        let machine = try ApsioctlMachine()
        let daemon = try StateDirectoryLock.acquire(StateLayout(root: machine.state))
        defer { daemon.release() }
        let off = await CtlRun.run(machine.options + ["allow-live", "off", "nginx"])
        #expect(off.status == 1)
        #expect(off.stdout.isEmpty)
        #expect(off.stderr == "apsioctl: apsiod runs but its control socket cannot be reached: nothing answers on \(machine.runtime)/control.sock; restarting apsiod makes it again\n")
        #expect(try machine.settings == OperatorSettings())
        let status = await CtlRun.run(machine.options + ["status"])
        #expect(status.status == 1, "not 3: it runs")
        #expect(status.stderr.contains("apsiod runs but its control socket cannot be reached"))

        daemon.release()
        let stopped = await CtlRun.run(machine.options + ["allow-live", "off", "nginx"])
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(stopped.stdout.contains("apsiod is not running: it takes effect when apsiod starts"))
    }
}
