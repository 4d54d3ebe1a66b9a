import ApsioCore

/// journald's note that its rate limit dropped lines of a unit, and the record that stands for them.
///
/// What journald (systemd 252) writes, from its own unit (`_SYSTEMD_UNIT=systemd-journald.service`),
/// when a unit's lines come again after a rate-limit window in which it dropped some:
/// `_TRANSPORT=driver`, `MESSAGE_ID=a596d6fe7bfa4994828e72309e95d61e`, `PRIORITY=6`,
/// `N_DROPPED=` the count, `MESSAGE=Suppressed N messages from UNIT`, and the unit named again as
/// `OBJECT_SYSTEMD_UNIT=` among the `OBJECT_*` fields of the process whose line ended the window.
/// `_TRANSPORT` is a trusted field, which no other writer can set: the note is taken only with it.
///
/// The note says neither when the window began nor at which priority: journald keeps one window
/// per unit and priority, lets `RateLimitBurst=` lines through from its first line, drops the rest
/// until `RateLimitIntervalSec=` has passed, and writes the note just before the first line after
/// that, which may come long after the window ended. So the dropped lines came after the last line
/// of that priority journald kept, and before the note. The record's range starts at the earliest
/// of the unit's latest line at each priority this reader saw before the note, which is at or
/// before that; none when it saw no line of the unit (docs/decisions.md).
struct JournaldSuppression {
    /// SD_MESSAGE_JOURNAL_DROPPED.
    static let messageID = Array("a596d6fe7bfa4994828e72309e95d61e".utf8)
    private static let driverTransport = Array("driver".utf8)

    /// Whether the entry is journald's own note of dropped lines. Which unit it names, and whether
    /// its count can be read, is for the caller.
    static func isNote(_ fields: borrowing JournalEntryFields) -> Bool {
        fields.has(.messageID, equalTo: messageID) && fields.has(.transport, equalTo: driverTransport)
    }

    /// The note's `N_DROPPED`: nil when absent, not a decimal, or zero (journald writes the note
    /// only for one or more); such a note is passed over and nothing is made of it.
    static func droppedCount(_ fields: borrowing JournalEntryFields) -> Int64? {
        guard let count = fields.integer(.dropped), count > 0 else { return nil }
        return count
    }

    /// The realtime (µs) of each unit's latest line at each priority, 0 for none: what the start
    /// of a note's range is taken from.
    private var latest: [[UInt64]]

    init(units: Int) {
        latest = Array(repeating: Array(repeating: 0, count: 8), count: units)
    }

    /// A line of the unit at `priority` (0–7), written at `realtime`.
    mutating func noteLine(unit: Int, priority: Int, realtime: UInt64) {
        latest[unit][priority] = realtime
    }

    /// The earliest of the unit's latest line at each priority, before which none of the dropped
    /// lines came; nil when no line of the unit was seen.
    func rangeStart(unit: Int) -> UInt64? {
        latest[unit].lazy.filter { $0 != 0 }.min()
    }

    /// The record of a note about `unit`, whose count `droppedCount` read. WARN, whatever the
    /// note's own priority: lines were lost.
    func record(
        _ fields: borrowing JournalEntryFields, count: Int64, unit: String, unitIndex: Int, realtimeMicroseconds: UInt64,
        cursor: String
    ) -> LogRecord {
        let end = JournalEntryMapper.nanoseconds(realtimeMicroseconds)
        let start = rangeStart(unit: unitIndex).map(JournalEntryMapper.nanoseconds)
        var attributes = JournalDropRecord.attributes(count: count, cause: .rateLimit, startUnixNano: start, endUnixNano: end)
        attributes.append(.string("systemd.unit", unit))
        attributes.append(.string("MESSAGE_ID", String(decoding: Self.messageID, as: UTF8.self)))
        let lines = count == 1 ? "1 line" : "\(count) lines"
        let body = "journald dropped \(lines) of \(unit) under its rate limit (RateLimitIntervalSec=, RateLimitBurst=); they never reached the journal"
        return LogRecord(
            timeUnixNano: end, severity: JournalSeverity(priority: 4), body: body, attributes: attributes,
            journalCursor: cursor)
    }
}
