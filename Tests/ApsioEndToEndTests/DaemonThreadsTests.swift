import ApsioCore
import Foundation
@testable import ApsioTestSupport
import Testing

/// The built `apsiod` runs on threads of its own, each named `apsio-…`: no libdispatch worker or
/// manager thread, whose watchdog timer wakes a process every second for as long as it lives
/// (bench/idle counts the wake-ups: none while idle). Checked after every path that starts tasks
/// and threads: a name looked up, ingest, a live session and a command, SIGHUP, and while it is
/// still serving, with signals the test process started it with blocked.
@Suite(.serialized) struct DaemonThreadsTests {
    @Test func everyThreadIsApsiodsOwnAfterEveryPathThatStartsWork() async throws {
        try await AgentHarness.with { h in
            // The backend by name: the daemon looks it up.
            let hosts = try h.root.write("hosts", "127.0.0.1 localhost\n").path
            try h.writeApp(backendOrigin: "http://localhost:\(h.backend.port)")
            h.backend.setPolicy(try h.policy())
            try h.start(wrapper: DaemonResourceTests.withFiles([(hosts, ["/etc/hosts"])]))
            try await h.waitServing()
            try await h.journal.write([h.journal.entry(unit: AgentHarness.unit, message: "a line")])
            try await poll("the line at the sink", seconds: 60, every: .milliseconds(100)) {
                h.backend.records.contains { $0.body == "a line" }
            }
            try await h.startLiveSession()
            _ = try await h.run(command: "diagnostics", id: "c1")
            let daemon = try #require(h.daemon)
            kill(daemon.process.processIdentifier, SIGHUP)
            try await poll("the reload after SIGHUP", seconds: 60, every: .milliseconds(100)) {
                h.log.contains("configuration read again")
            }

            let tasks = "/proc/\(daemon.process.processIdentifier)/task"
            let names = try FileManager.default.contentsOfDirectory(atPath: tasks).compactMap {
                try? String(contentsOfFile: "\(tasks)/\($0)/comm", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            }
            #expect(!names.isEmpty)
            #expect(names.allSatisfy { $0 == "apsiod" || $0.hasPrefix("apsio-") }, "\(names.sorted())")
            #expect(names.contains("apsio-pool"), "\(names.sorted())")
            #expect(await h.stop() == 0)
            #expect(h.log.contains("stopped"), "SIGTERM stopped it cleanly")
        }
    }
}
