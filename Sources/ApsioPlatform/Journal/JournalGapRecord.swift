package import ApsioCore

/// The record that stands for an app's entries the journal lost before they were sent
/// (`JournalGap`: the entry after which its reading stood was vacuumed, removed or damaged), put
/// in the app's stream before the first entry read after the gap (docs/otlp.md, "Entries the
/// journal lost"). WARN, `JournalDropRecord`'s attributes with cause `journal_gap`.
///
/// What is left to say how many and when is in the two cursors on either side. An sd-journal cursor
/// is `s=SEQNUM_ID;i=SEQNUM;b=BOOT_ID;m=MONOTONIC;t=REALTIME;x=XOR_HASH` (hexadecimal numbers,
/// sd_journal_get_cursor(3) calls it opaque, and journald has written it so since v187): the
/// sequence number counts every entry of the journal, of every unit, within one sequence (`s=`),
/// so the entries between are at most the difference; the realtime bounds the range. Neither
/// cursor names the unit's own count, which is gone with the files.
package enum JournalGapRecord {
    /// The fields of a cursor this record uses; nil where the cursor does not carry them.
    struct CursorPlace {
        var sequence: (id: Substring, number: UInt64)?
        var realtimeMicroseconds: UInt64?

        init(_ cursor: String) {
            var id: Substring?
            var number: UInt64?
            for field in cursor.split(separator: ";") {
                guard let equals = field.firstIndex(of: "=") else { continue }
                let value = field[field.index(after: equals)...]
                switch field[..<equals] {
                case "s": id = value
                case "i": number = UInt64(value, radix: 16)
                case "t": realtimeMicroseconds = UInt64(value, radix: 16)
                default: break
                }
            }
            if let id, !id.isEmpty, let number { sequence = (id, number) }
        }
    }

    /// The record for `gap`, whose first entry read after it is `next` (of the app's `unit`): at
    /// `next`'s time, without a journal cursor (the same gap read again after a crash is the
    /// same record), its range from the lost-after entry's time (absent when the cursor could not
    /// be read) to `next`'s.
    package static func record(for gap: JournalGap, before next: LogRecord, unit: String) -> LogRecord {
        let lost = CursorPlace(gap.cursor)
        let found = next.journalCursor.map(CursorPlace.init)
        // At most the entries between the two within one sequence; not known across two (the
        // journal's files were all removed and journald began a new one).
        var count: Int64?
        if gap.reason == .entryGone, let before = lost.sequence, let after = found?.sequence, before.id == after.id, after.number > before.number {
            count = Int64(clamping: after.number - before.number - 1)
        }
        let start = gap.reason == .entryGone ? lost.realtimeMicroseconds.map(nanoseconds) : nil
        var attributes = JournalDropRecord.attributes(
            count: count, cause: .journalGap, startUnixNano: start, endUnixNano: next.timeUnixNano)
        attributes.append(.string("systemd.unit", unit))
        let how = gap.reason == .entryGone ? "its files were vacuumed, removed or damaged" : "the saved cursor could not be read"
        let many: String
        switch count {
        case 0?: many = "no other entry of the journal lay between the last one sent and the next one there"
        case 1?: many = "at most 1 entry of the journal lay between the last one sent and the next one there"
        case let count?: many = "at most \(count) entries of the journal lay between the last one sent and the next one there"
        case nil: many = "how many is not known"
        }
        let body = "the journal lost entries of \(unit) before apsiod sent them (\(how)): \(many)"
        return LogRecord(timeUnixNano: next.timeUnixNano, severity: JournalSeverity(priority: 4), body: body, attributes: attributes)
    }

    private static func nanoseconds(_ microseconds: UInt64) -> UInt64 {
        JournalEntryMapper.nanoseconds(microseconds)
    }
}
