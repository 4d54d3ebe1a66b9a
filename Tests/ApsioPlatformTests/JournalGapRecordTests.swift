import ApsioCore
import ApsioPlatform
import Testing

/// The record for entries the journal lost before they were sent: its count from the two cursors'
/// sequence numbers when they are of one sequence, as journald's rotation keeps them, and none
/// otherwise; its range from their realtimes. The cursors are as sd-journal spells them.
@Suite struct JournalGapRecordTests {
    static let sequence = "fb3e26385dc046a99a2e854ab640b4e4"
    static let boot = "0123456789abcdef0123456789abcdef"

    static func cursor(sequence: String = sequence, number: UInt64, realtime: UInt64) -> String {
        "s=\(sequence);i=\(String(number, radix: 16));b=\(boot);m=1f;t=\(String(realtime, radix: 16));x=6c073af7608fb590"
    }

    static func next(number: UInt64, realtime: UInt64, sequence: String = sequence) -> LogRecord {
        LogRecord(
            timeUnixNano: realtime * 1000, severity: JournalSeverity(priority: 6), body: "after",
            journalCursor: cursor(sequence: sequence, number: number, realtime: realtime))
    }

    static func int(_ record: LogRecord, _ key: String) -> Int64? {
        guard let attribute = record.attributes.first(where: { $0.key == key }), case .int(let value) = attribute.value
        else { return nil }
        return value
    }

    static func string(_ record: LogRecord, _ key: String) -> String? {
        guard let attribute = record.attributes.first(where: { $0.key == key }), case .string(let value) = attribute.value
        else { return nil }
        return value
    }

    @Test func withinOneSequenceTheCountIsAtMostWhatLayBetween() {
        let gap = JournalGap(appID: "nginx", cursor: Self.cursor(number: 0x31, realtime: 1_700_000_000_049_000), reason: .entryGone)
        let record = JournalGapRecord.record(
            for: gap, before: Self.next(number: 0x64, realtime: 1_700_000_000_100_000), unit: "nginx.service")
        #expect(JournalDropRecord.droppedCount(of: record) == 50)
        #expect(JournalDropRecord.isDropRecord(record))
        #expect(Self.string(record, JournalDropRecord.causeKey) == "journal_gap")
        #expect(Self.int(record, JournalDropRecord.startKey) == 1_700_000_000_049_000_000)
        #expect(Self.int(record, JournalDropRecord.endKey) == 1_700_000_000_100_000_000)
        #expect(Self.string(record, "systemd.unit") == "nginx.service")
        #expect(record.timeUnixNano == 1_700_000_000_100_000_000)
        #expect(record.severityText == "WARN")
        #expect(record.journalCursor == nil, "the same gap read again makes the same record")
        #expect(record.body.contains("at most 50 entries of the journal"), "\(record.body)")
    }

    @Test func acrossTwoSequencesHowManyIsNotKnown() {
        let gap = JournalGap(appID: "nginx", cursor: Self.cursor(number: 0x31, realtime: 1_700_000_000_049_000), reason: .entryGone)
        let record = JournalGapRecord.record(
            for: gap, before: Self.next(number: 1, realtime: 1_700_000_000_100_000, sequence: "90801a17387f4526bb5551f12f9786c5"),
            unit: "nginx.service")
        #expect(JournalDropRecord.droppedCount(of: record) == nil)
        #expect(JournalDropRecord.isDropRecord(record), "told by its cause, first")
        #expect(record.attributes.first?.key == JournalDropRecord.causeKey)
        #expect(Self.int(record, JournalDropRecord.startKey) == 1_700_000_000_049_000_000)
        #expect(record.body.contains("how many is not known"), "\(record.body)")
    }

    @Test func aCursorThatCouldNotBeReadGivesNeitherStartNorCount() {
        let gap = JournalGap(appID: "nginx", cursor: "s=\(Self.sequence);i=31;t=zz", reason: .unreadableCursor)
        let record = JournalGapRecord.record(
            for: gap, before: Self.next(number: 0x64, realtime: 1_700_000_000_100_000), unit: "nginx.service")
        #expect(JournalDropRecord.droppedCount(of: record) == nil)
        #expect(Self.int(record, JournalDropRecord.startKey) == nil)
        #expect(Self.int(record, JournalDropRecord.endKey) == 1_700_000_000_100_000_000)
        #expect(record.body.contains("the saved cursor could not be read"), "\(record.body)")
    }

    @Test func anyOtherRecordIsNoDropRecord() {
        #expect(!JournalDropRecord.isDropRecord(Self.next(number: 1, realtime: 1)))
        let withAttributes = LogRecord(
            timeUnixNano: 1, severity: JournalSeverity(priority: 6), body: "x", attributes: [.string("CODE_FILE", "a.c")])
        #expect(!JournalDropRecord.isDropRecord(withAttributes))
    }
}
