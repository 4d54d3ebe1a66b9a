import ApsioControl
import ApsioCore
import ApsioJSON
import Foundation
import Testing
@testable import ApsioTestSupport

/// `apsioctl watch` against a control server: the status first, then each change as a stamped
/// line (or the daemon's event lines with `--json`), until the daemon ends the watch.
@Suite struct WatchTests {
    @Test func watchNarratesEachChangeUntilTheDaemonEndsIt() async throws {
        let fixture = try ControlFixture()
        let output = CapturedOutput()
        // 14:02:09 UTC is 15:02:09 an hour east.
        let clock = FixedCtlClock(offsetSeconds: 3600)
        let watch = Task { await CtlRun.run(["--runtime-dir", fixture.directory.path, "watch", "nginx"], clock: clock, output: output) }
        try await until("the status in the watch", on: [output]) { output.stdout.contains("Nobody is viewing nginx live") }
        #expect(output.stdout == """
            [15:02:09] nginx (nginx.service): active, live inspection off, consent not asked
            [15:02:09]   Nobody is viewing nginx live

            """)
        fixture.handler.emit(.dataSaver(true))
        try await until("the change in the watch", on: [output]) { output.stdout.contains("Data Saver is now on") }
        #expect(output.stdout.hasSuffix("[15:02:09] Data Saver is now on\n"))

        await fixture.server.stop()
        let result = await watch.value
        #expect(result.status == 1)
        #expect(result.stderr == "apsioctl: apsiod ended the watch (it stopped, gave its place to a newer connection, or this watch read too slowly); run it again\n")
    }

    @Test func watchWithJSONPrintsTheDaemonsLines() async throws {
        let fixture = try ControlFixture()
        let output = CapturedOutput()
        let watch = Task { await CtlRun.run(["--runtime-dir", fixture.directory.path, "--json", "watch", "api"], output: output) }
        try await until("the status in the watch", on: [output]) { output.stdout.split(separator: "\n").count == 2 }
        fixture.handler.emit(.dataSaver(true))
        try await until("the change in the watch", on: [output]) { output.stdout.split(separator: "\n").count == 3 }
        await fixture.server.stop()
        let result = await watch.value
        #expect(result.status == 1)

        let lines = try output.stdout.split(separator: "\n").map { try JSONParser().parse(Array($0.utf8)) }
        #expect(lines.first?["ok"] == .bool(true))
        #expect(lines.dropFirst().first?["event"] == .string("status"))
        #expect(lines.dropFirst().first?["app"]?["name"] == .string("api"))
        #expect(lines.last == .object(["event": .string("data_saver"), "on": .bool(true)]))
    }

    @Test func anUnknownAppIsRefusedBeforeAnyEvent() async throws {
        try await withControlServer { fixture in
            let result = await CtlRun.run(["--runtime-dir", fixture.directory.path, "watch", "redis"])
            #expect(result.status == 1)
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.contains("redis"))
            #expect(fixture.handler.watcherCount == 0)
        }
    }
}
