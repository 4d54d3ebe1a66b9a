import ApsioCore
import Foundation
@testable import ApsioTestSupport
import Testing

/// journald's note that its rate limit dropped lines of the app's unit, on the built `apsiod`: it
/// reaches `/v1/logs` as one WARN record with journald's count and the range, with the next batch,
/// and `apsioctl status` counts it; a note about another unit is not the app's.
@Suite(.serialized) struct DaemonJournaldDropTests {
    static func isDrop(_ record: SentRecord) -> Bool { record.attributes["apsio.journal.dropped.count"] != nil }

    @Test func journaldsNoteForTheUnitBecomesACountedGapRecord() async throws {
        try await AgentHarness.with { h in
            try await h.serve(try h.policy(live: false))
            let before = h.journal.entry(unit: AgentHarness.unit, message: "before the flood")
            let note = h.journal.suppression(unit: AgentHarness.unit, dropped: "1234")
            try await h.journal.write([
                before,
                h.journal.suppression(unit: "other.service", dropped: "99"),
                note,
                h.journal.entry(unit: AgentHarness.unit, message: "after the flood"),
            ])
            try await poll("the lines and the gap record at /v1/logs", seconds: 60, every: .milliseconds(100)) {
                h.backend.records.contains { $0.body == "after the flood" } && h.backend.records.contains(where: Self.isDrop)
            }
            let drops = h.backend.records.filter(Self.isDrop)
            #expect(drops.count == 1, "only the app's unit's note: \(drops.map(\.body))")
            let drop = try #require(drops.first)
            #expect(drop.severityNumber == 13)
            #expect(drop.body.contains("1234 lines of \(AgentHarness.unit)"), "\(drop.body)")
            #expect(drop.attributes["apsio.journal.dropped.count"]?["intValue"] == .string("1234"))
            #expect(drop.attributes["apsio.journal.dropped.cause"]?["stringValue"] == .string("rate_limit"))
            #expect(drop.attributes["apsio.journal.dropped.start_time_unix_nano"]?["intValue"] == .string(String(before.realtime * 1000)))
            #expect(drop.attributes["apsio.journal.dropped.end_time_unix_nano"]?["intValue"] == .string(String(note.realtime * 1000)))
            #expect(drop.uid != nil)
            #expect(!h.backend.records.contains { $0.body.contains("other.service") })
            #expect(h.backend.records.map(\.body).filter { !$0.hasPrefix("journald") } == ["before the flood", "after the flood"])

            try await poll("apsioctl status counts it", seconds: 60, every: .milliseconds(100)) {
                (try? await h.ingestStatus())?["journald_dropped_lines"]?.numberValue == 1234
            }
            let ingest = try #require(try await h.ingestStatus())
            #expect(ingest["journald_drop_notes"]?.numberValue == 1, "\(ingest)")
            #expect(ingest["dropped_records"]?.numberValue == 0, "journald's loss is not apsiod's: \(ingest)")
            let status = try await h.ctl(["status", AgentHarness.app])
            #expect(status.stdout.contains("Dropped by journald's rate limit: 1234 lines (1 note, each sent as a record)"), "\(status.stdout)")
        }
    }
}
