import ApsioAgent
import ApsioCore
import Foundation
import Testing
import ApsioState

/// The apsioctl binary of this build, run as an operator runs it.
@Suite struct ApsioctlTests {
    /// A machine where apsiod is not running: a runtime directory without a socket, a state
    /// directory and a configuration with two app files.
    final class Machine: Sendable {
        let root: TestDirectory
        var runtime: String { root.path + "/run" }
        var state: String { root.path + "/state" }
        var config: String { root.path + "/etc" }
        var options: [String] { ["--runtime-dir", runtime, "--state-dir", state, "--config-dir", config] }

        init() throws {
            root = try TestDirectory("apsioctl")
            for directory in [runtime, state, config + "/apps.d"] {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            for app in ["nginx", "api"] {
                _ = FileManager.default.createFile(atPath: config + "/apps.d/\(app).conf", contents: Data("[App]\n".utf8))
            }
            _ = FileManager.default.createFile(atPath: config + "/apps.d/old.conf.example", contents: Data())
        }

        var settings: OperatorSettings {
            get throws { try SettingsStore(layout: StateLayout(root: state)).load() }
        }
    }

    @Test(arguments: [["status"], ["watch"], ["reload"], ["status", "nginx"]])
    func aCommandThatNeedsTheDaemonExitsThreeWithoutIt(_ command: [String]) async throws {
        let machine = try Machine()
        let result = try await Apsioctl.run(machine.options + command)
        #expect(result.status == 3)
        #expect(result.stderr.contains("apsiod is not running"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        let json = try await Apsioctl.run(machine.options + ["--json"] + command)
        #expect(json.status == 3)
        #expect(json.json?["ok"] == .bool(false))
        #expect(json.json?["error"] == .string("not_running"))
    }

    @Test(arguments: [
        [], ["frobnicate"], ["allow-live"], ["allow-live", "yes"], ["consent", "maybe"], ["data-saver", "on", "nginx"],
        ["apps", "extra"], ["status", "../etc"], ["--bogus", "status"], ["--state-dir"],
    ])
    func aBadCommandLineExitsTwo(_ arguments: [String]) async throws {
        let result = try await Apsioctl.run(arguments)
        #expect(result.status == 2, "\(arguments)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stdout.isEmpty)
    }

    @Test(arguments: ["status", "watch", "apps", "allow-live", "consent", "data-saver", "reload", "version"])
    func everyCommandHasHelp(_ command: String) async throws {
        let result = try await Apsioctl.run([command, "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("Usage: apsioctl \(command)"))
    }

    @Test func withoutTheDaemonSettingsAreStoredWhereTheDaemonReadsThem() async throws {
        let machine = try Machine()
        let allow = try await Apsioctl.run(machine.options + ["allow-live", "on"])
        #expect(allow.status == 0, "\(allow.stderr)")
        #expect(allow.stdout.contains("takes effect when apsiod starts"))
        let deny = try await Apsioctl.run(machine.options + ["consent", "deny", "api"])
        #expect(deny.status == 0, "\(deny.stderr)")
        let saver = try await Apsioctl.run(machine.options + ["--json", "data-saver", "on"])
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

    @Test func withoutTheDaemonAnAppWithoutAnAppFileIsRefused() async throws {
        let machine = try Machine()
        let result = try await Apsioctl.run(machine.options + ["allow-live", "on", "redis"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("redis"))
        #expect(try machine.settings == OperatorSettings())
    }

    @Test func settingsWrittenAsRootBelongToTheStateDirectorysOwner() async throws {
        let machine = try Machine()
        // The daemon's user and group own the state directory on an installed machine.
        try FileManager.default.setAttributes([.ownerAccountID: 65534, .groupOwnerAccountID: 65534], ofItemAtPath: machine.state)
        let result = try await Apsioctl.run(machine.options + ["allow-live", "on", "nginx"])
        #expect(result.status == 0, "\(result.stderr)")
        for file in ["settings.json", "settings.lock"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: machine.state + "/" + file)
            #expect(attributes[.ownerAccountID] as? Int == 65534, "\(file)")
            #expect(attributes[.groupOwnerAccountID] as? Int == 65534, "\(file)")
            #expect(attributes[.posixPermissions] as? Int == 0o660, "\(file)")
        }
    }

    @Test func withoutTheDaemonAppsListsTheAppFilesAndTheKeptInstallationIDs() async throws {
        let machine = try Machine()
        let id = try AppStateStore(layout: StateLayout(root: machine.state)).installationID(for: try AppName("nginx"))
        let result = try await Apsioctl.run(machine.options + ["--json", "apps"])
        #expect(result.status == 0)
        let apps = try #require(result.json?["apps"]?.arrayValue)
        #expect(apps.map { $0["name"] } == [.string("api"), .string("nginx")])
        #expect(apps.map { $0["installation_id"] } == [.null, .string(id)])
        #expect(result.json?["daemon_running"] == .bool(false))
        let human = try await Apsioctl.run(machine.options + ["apps"])
        #expect(human.stdout.contains(id))
    }

    /// Without the daemon apsioctl itself keeps the installation ids from users outside the group.
    @Test func withoutTheDaemonOnlyRootSeesTheInstallationIDs() async throws {
        let machine = try Machine()
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

    /// The daemon's user owns the state and could read the ids there: apsioctl shows them to it.
    @Test func withoutTheDaemonTheStatesOwnerSeesTheInstallationIDs() async throws {
        let machine = try Machine()
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

    @Test func versionNeedsNoDaemon() async throws {
        let machine = try Machine()
        let result = try await Apsioctl.run(machine.options + ["--json", "version"])
        #expect(result.status == 0)
        #expect(result.json == .object(["ok": .bool(true), "apsioctl": .string(ApsioVersion.current), "apsiod": .null]))
        // Packaging checks read exactly one line.
        let own = try await Apsioctl.run(machine.options + ["--version"])
        #expect(own.status == 0)
        #expect(own.stdout == "apsioctl \(ApsioVersion.current)\n")
    }

    // MARK: With the daemon

    @Test func withTheDaemonChangesGoThroughItsSocket() async throws {
        try await withControlServer { fixture in
            let machine = try Machine()
            let options = ["--runtime-dir", fixture.directory.path, "--state-dir", machine.state, "--config-dir", machine.config]
            let allow = try await Apsioctl.run(options + ["--json", "allow-live", "on", "nginx"])
            #expect(allow.status == 0, "\(allow.stderr)")
            #expect(allow.json == .object(["ok": .bool(true), "apps": .array([.string("nginx")]), "daemon_running": .bool(true)]))
            #expect(fixture.handler.snapshot.allowLive == ["nginx": true])
            // The daemon stores it; apsioctl did not write behind its back.
            #expect(try machine.settings == OperatorSettings())

            let unknown = try await Apsioctl.run(options + ["consent", "grant", "redis"])
            #expect(unknown.status == 1)
            #expect(unknown.stderr.contains("redis"))

            let version = try await Apsioctl.run(options + ["version"])
            #expect(version.stdout == "apsioctl \(ApsioVersion.current)\napsiod \(ApsioVersion.current)\n")
        }
    }

    @Test func statusAndAppsInBothForms() async throws {
        try await withControlServer { fixture in
            let options = ["--runtime-dir", fixture.directory.path]
            let status = try await Apsioctl.run(options + ["--json", "status", "nginx"])
            #expect(status.status == 0)
            let app = try #require(status.json?["apps"]?.arrayValue?.first)
            #expect(app["name"] == .string("nginx"))
            #expect(app["viewers"] == .number(0))
            #expect(app["consent"] == .string("not_asked"))
            #expect(status.json?["data_saver"] == .bool(false))

            let human = try await Apsioctl.run(options + ["status"])
            #expect(human.stdout.contains("nginx (nginx.service): active, live inspection off, consent not asked"))
            #expect(human.stdout.contains("Data Saver: off"))

            let apps = try await Apsioctl.run(options + ["--json", "apps"])
            let first = try #require(apps.json?["apps"]?.arrayValue?.first)
            for key in ["name", "unit", "service_name", "service_version", "build_id", "installation_id"] {
                #expect(first[key]?.stringValue != nil, "\(key)")
            }
            #expect(apps.json?["daemon_running"] == .bool(true))

            let reload = try await Apsioctl.run(options + ["reload"])
            #expect(reload.status == 0)
            #expect(reload.stdout.contains("apps.d/broken.conf:3"))

            let unknown = try await Apsioctl.run(options + ["status", "redis"])
            #expect(unknown.status == 1)
        }
    }
}
