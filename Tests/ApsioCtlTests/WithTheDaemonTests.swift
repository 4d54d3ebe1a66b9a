import ApsioControl
import ApsioCore
import ApsioState
import Testing
@testable import ApsioTestSupport

/// apsioctl against a control server on a real socket, a fake daemon behind it: every command
/// goes through the socket, in both output forms.
@Suite struct WithTheDaemonTests {
    @Test func changesGoThroughItsSocket() async throws {
        try await withControlServer { fixture in
            let machine = try ApsioctlMachine()
            let options = ["--runtime-dir", fixture.directory.path, "--state-dir", machine.state, "--config-dir", machine.config]
            let allow = await CtlRun.run(options + ["--json", "allow-live", "on", "nginx"])
            #expect(allow.status == 0, "\(allow.stderr)")
            #expect(allow.json == .object(["ok": .bool(true), "apps": .array([.string("nginx")]), "daemon_running": .bool(true)]))
            #expect(fixture.handler.snapshot.allowLive == ["nginx": true])
            // The daemon stores it; apsioctl did not write behind its back.
            #expect(try machine.settings == OperatorSettings())

            let consent = await CtlRun.run(options + ["consent", "grant"])
            #expect(consent.stdout == "Consent granted for nginx, api\n")
            #expect(fixture.handler.snapshot.consent == ["nginx": .granted, "api": .granted])
            let saver = await CtlRun.run(options + ["data-saver", "on"])
            #expect(saver.stdout == "Data Saver on\n")
            #expect(fixture.handler.snapshot.dataSaver)

            let unknown = await CtlRun.run(options + ["consent", "grant", "redis"])
            #expect(unknown.status == 1)
            #expect(unknown.stderr.contains("redis"))
            #expect(unknown.stderr.split(separator: "\n").count == 1)

            let version = await CtlRun.run(options + ["version"])
            #expect(version.stdout == "apsioctl \(ApsioVersion.current)\napsiod \(ApsioVersion.current)\n")
            let jsonVersion = await CtlRun.run(options + ["--json", "version"])
            #expect(jsonVersion.json?["apsiod"] == .string(ApsioVersion.current))
        }
    }

    @Test func statusAndAppsInBothForms() async throws {
        try await withControlServer { fixture in
            let options = ["--runtime-dir", fixture.directory.path]
            let status = await CtlRun.run(options + ["--json", "status", "nginx"])
            #expect(status.status == 0)
            let app = try #require(status.json?["apps"]?.arrayValue?.first)
            #expect(app["name"] == .string("nginx"))
            #expect(app["viewers"] == .number(0))
            #expect(app["consent"] == .string("not_asked"))
            #expect(status.json?["data_saver"] == .bool(false))

            let human = await CtlRun.run(options + ["status"])
            #expect(human.stdout.contains("nginx (nginx.service): active, live inspection off, consent not asked"))
            #expect(human.stdout.contains("  Nobody is viewing nginx live"))
            #expect(human.stdout.hasSuffix("Data Saver: off\n"))

            let apps = await CtlRun.run(options + ["--json", "apps"])
            let first = try #require(apps.json?["apps"]?.arrayValue?.first)
            for key in ["name", "unit", "service_name", "service_version", "build_id", "installation_id"] {
                #expect(first[key]?.stringValue != nil, "\(key)")
            }
            #expect(apps.json?["daemon_running"] == .bool(true))
            let humanApps = await CtlRun.run(options + ["apps"])
            #expect(humanApps.stdout.hasPrefix("""
                nginx
                  unit:             nginx.service
                  service.name:     com.example.nginx
                  service.version:  1.0
                  app.build_id:     ab12
                  installation id:  0b6f4a4e-7f55-4a8e-9d7c-2f1d3c4b5a69

                """))

            let reload = await CtlRun.run(options + ["reload"])
            #expect(reload.status == 0)
            #expect(reload.stdout == "Configuration reloaded, with problems:\n  apps.d/broken.conf:3: unknown key `Famlies` in [App]\n")
            #expect(fixture.handler.snapshot.reloads == 1)

            let unknown = await CtlRun.run(options + ["status", "redis"])
            #expect(unknown.status == 1)
        }
    }

    /// With the daemon running, it decides from the socket's peer credentials, not apsioctl from
    /// the caller it is given (the refusal a user outside the group gets is ControlServerTests').
    @Test func theDaemonDecidesFromThePeerCredentials() async throws {
        try await withControlServer(access: ControlAccess(adminGroup: "apsio-no-such-group")) { fixture in
            let options = ["--runtime-dir", fixture.directory.path]
            // This process is root, so the daemon lets it change whatever apsioctl was told.
            let allowed = await CtlRun.run(options + ["allow-live", "on", "nginx"], caller: CtlRun.nobody)
            #expect(allowed.status == 0, "\(allowed.stderr)")
            #expect(fixture.handler.snapshot.allowLive == ["nginx": true])
        }
    }
}
