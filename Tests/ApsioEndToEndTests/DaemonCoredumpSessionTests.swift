import ApsioCore
import Foundation
@testable import ApsioTestSupport
import Testing

/// A crash of the app's unit on the built `apsiod`: systemd-coredump's report reaches `/v1/logs`
/// in the session of the invocation whose process crashed (spec 2.4 and 2.5, LINUX-PROFILE §3),
/// not in none, and not in the invocation the unit was restarted as before the report came.
@Suite(.serialized) struct DaemonCoredumpSessionTests {
    static let invocationA = "a1a1a1a1b2b2c3c3d4d4e5e5e5e5e5e5"
    static let invocationB = "b7b7b7b7c8c8d9d9e0e0f1f1f1f1f1f1"

    /// `session.id` as a backend reads it (2.4): the record's own, else its Resource's.
    static func session(of record: SentRecord) -> String? {
        record.attributes["session.id"]?["stringValue"]?.stringValue ?? record.resource["session.id"]
    }

    @Test func crashReportIsExportedInTheSessionOfTheCrashedInvocation() async throws {
        try await AgentHarness.with { h in
            try await h.serve(try h.policy(live: false))
            try await h.journal.write([
                h.journal.entry(unit: AgentHarness.unit, message: "A serving", invocationID: Self.invocationA),
                h.journal.entry(unit: AgentHarness.unit, message: "A about to crash", invocationID: Self.invocationA),
                h.journal.entry(unit: AgentHarness.unit, message: "B starting", invocationID: Self.invocationB)
                    .replacing("_PID", with: .text("5151")),
                h.journal.coredump(unit: AgentHarness.unit, pid: 4242),
            ])
            try await poll("the crash at /v1/logs", seconds: 60, every: .milliseconds(100)) {
                h.backend.records.contains { $0.body.hasPrefix("Process 4242 (demo)") }
            }
            let crash = try #require(h.backend.records.first { $0.body.hasPrefix("Process 4242 (demo)") })
            #expect(crash.attributes["process.pid"]?["intValue"] == .string("4242"))
            #expect(Self.session(of: crash) == "a1a1a1a1-b2b2-c3c3-d4d4-e5e5e5e5e5e5")
            let lineA = try #require(h.backend.records.first { $0.body == "A about to crash" })
            let lineB = try #require(h.backend.records.first { $0.body == "B starting" })
            #expect(Self.session(of: crash) == Self.session(of: lineA))
            #expect(Self.session(of: lineB) == "b7b7b7b7-c8c8-d9d9-e0e0-f1f1f1f1f1f1")
        }
    }
}

extension JournalFixture.Entry {
    func replacing(_ name: String, with value: JournalFixture.Value) -> Self {
        var copy = self
        copy.fields = fields.map { $0.0 == name ? (name, value) : $0 }
        return copy
    }
}
