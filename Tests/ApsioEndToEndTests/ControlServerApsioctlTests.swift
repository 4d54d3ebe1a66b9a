import ApsioControl
import Testing
@testable import ApsioTestSupport

/// Who may read and who may change, as the built `apsioctl` run as another user (setpriv) meets a
/// control server on a real socket with a fake daemon behind it.
@Suite struct ControlServerApsioctlTests {
    @Test func aUserOutsideTheGroupMayReadButNotChange() async throws {
        try await withControlServer(access: ControlAccess(adminGroup: "users")) { fixture in
            let socketOptions = ["--runtime-dir", fixture.directory.path]
            let status = try await Apsioctl.run(socketOptions + ["status"], asUser: "nobody")
            #expect(status.status == 0, "\(status.stderr)")
            #expect(status.stdout.contains("Nobody is viewing nginx live"))

            let refused = try await Apsioctl.run(socketOptions + ["allow-live", "on", "nginx"], asUser: "nobody")
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("only root and members of the group users"))
            #expect(refused.stderr.split(separator: "\n").count == 1)
            #expect(fixture.handler.snapshot.allowLive.isEmpty)

            let member = try await Apsioctl.run(socketOptions + ["allow-live", "on", "nginx"], asUser: "nobody", groups: ["users"])
            #expect(member.status == 0, "\(member.stderr)")
            #expect(fixture.handler.snapshot.allowLive == ["nginx": true])
        }
    }

    /// With a tester id from the policy, an installation id makes the tester proof (16.1): a
    /// local user outside the group must not learn it from `apps`.
    @Test func installationIDsAreShownOnlyToRootAndTheAdminGroup() async throws {
        let id = "0b6f4a4e-7f55-4a8e-9d7c-2f1d3c4b5a69"
        try await withControlServer(access: ControlAccess(adminGroup: "users")) { fixture in
            let socketOptions = ["--runtime-dir", fixture.directory.path]
            let json = try await Apsioctl.run(socketOptions + ["--json", "apps"], asUser: "nobody")
            #expect(json.status == 0, "\(json.stderr)")
            let apps = try #require(json.json?["apps"]?.arrayValue)
            #expect(apps.map { $0["name"] } == [.string("nginx"), .string("api")])
            #expect(apps.allSatisfy { $0["installation_id"] == .null && $0["installation_id_hidden"] == .bool(true) })
            #expect(apps.first?["service_name"] == .string("com.example.nginx"), "the rest is still shown")
            #expect(!json.stdout.contains(id))

            let human = try await Apsioctl.run(socketOptions + ["apps"], asUser: "nobody")
            #expect(human.status == 0, "\(human.stderr)")
            #expect(human.stdout.contains("installation id:  hidden (shown to root and members of the group apsio)"))
            #expect(!human.stdout.contains(id))

            let member = try await Apsioctl.run(socketOptions + ["--json", "apps"], asUser: "nobody", groups: ["users"])
            let shown = try #require(member.json?["apps"]?.arrayValue)
            #expect(shown.map { $0["installation_id"] } == [.string(id), .string(id)])
            #expect(shown.allSatisfy { $0["installation_id_hidden"] == .bool(false) })

            let client = try fixture.client()
            defer { client.close() }
            guard case .apps(let asRoot) = try await client.send(.apps) else {
                Issue.record("apps was not answered with apps")
                return
            }
            #expect(asRoot.map(\.installationID) == [id, id])
            #expect(asRoot.allSatisfy { !$0.installationIDHidden })
        }
    }

    /// The daemon's own user keeps the ids on disk, so `apps` does not withhold them from it.
    @Test func theStatesOwnerSeesTheInstallationIDs() async throws {
        try await withControlServer(access: ControlAccess(adminGroup: "apsio-no-such-group", stateOwner: 65534)) { fixture in
            let run = try await Apsioctl.run(["--runtime-dir", fixture.directory.path, "--json", "apps"], asUser: "nobody")
            let apps = try #require(run.json?["apps"]?.arrayValue)
            #expect(apps.map { $0["installation_id"] } == [.string("0b6f4a4e-7f55-4a8e-9d7c-2f1d3c4b5a69"), .string("0b6f4a4e-7f55-4a8e-9d7c-2f1d3c4b5a69")])
            #expect(apps.allSatisfy { $0["installation_id_hidden"] == .bool(false) })
        }
    }
}
