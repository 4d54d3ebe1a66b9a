/// Entries of an app's unit that its `RateLimit=` dropped, one after another in journal order, and
/// the record that stands for them in the app's stream: WARN, with `JournalDropRecord`'s
/// attributes and cause `apsiod_rate_limit` (docs/otlp.md, "Entries RateLimit= dropped").
package struct RateLimitDrops: Sendable, Equatable {
    package var count: Int
    /// The range of the dropped entries' own journal times.
    package var firstUnixNano: UInt64
    package var lastUnixNano: UInt64
    /// The position to save once the record is accepted: the last dropped entry, or whatever the
    /// limiter held after it (`RateLimiter.hold`).
    package var cursorAfter: String?

    package init(count: Int, firstUnixNano: UInt64, lastUnixNano: UInt64, cursorAfter: String? = nil) {
        self.count = count
        self.firstUnixNano = firstUnixNano
        self.lastUnixNano = lastUnixNano
        self.cursorAfter = cursorAfter
    }

    /// The record, at the last dropped entry's time. Without a journal cursor: its uid is its
    /// content's, the same for the same drops read again.
    package func record(unit: String, limit: IngestRateLimit) -> LogRecord {
        var attributes = JournalDropRecord.attributes(
            count: Int64(count), cause: .apsiodRateLimit, startUnixNano: firstUnixNano, endUnixNano: lastUnixNano)
        attributes.append(.string("systemd.unit", unit))
        let entries = count == 1 ? "1 entry" : "\(count) entries"
        let body = "apsiod dropped \(entries) of \(unit) over RateLimit=\(limit.description) (RateLimitBurst=\(limit.burst))"
        return LogRecord(timeUnixNano: lastUnixNano, severity: JournalSeverity(priority: 4), body: body, attributes: attributes)
    }
}
