/// The record that stands for entries of the app's unit that were dropped: journald's rate limit
/// kept them from the journal and it wrote a note saying how many, the app's own `RateLimit=`
/// dropped them on their way out (`RateLimitDrops`), or the journal lost them before they were
/// sent (`JournalGapRecord`: vacuumed, removed or damaged files). It goes out in the app's stream
/// like any record (severity WARN), and its attributes are what a backend, `apsioctl status` and
/// the viewer know it by (docs/otlp.md, "Entries journald dropped"). Their keys are lowercase and
/// dotted, which no journald field name can be, so an app's own field never passes for one.
package enum JournalDropRecord {
    /// How many entries were dropped (int). The record's first attribute, which is how
    /// `droppedCount` tells the record from others at the cost of one comparison; absent only when
    /// the count is not known (a journal gap across journal files of different sequences), and the
    /// cause is then first.
    package static let countKey = "apsio.journal.dropped.count"
    /// Why they were dropped (`Cause`).
    package static let causeKey = "apsio.journal.dropped.cause"
    /// The range the dropped entries lie in, Unix nanoseconds (int): after the start (absent when
    /// not known) and before the end.
    package static let startKey = "apsio.journal.dropped.start_time_unix_nano"
    package static let endKey = "apsio.journal.dropped.end_time_unix_nano"

    package enum Cause: String, Sendable {
        /// journald's per-unit rate limit (`RateLimitIntervalSec=`/`RateLimitBurst=`, or the unit's
        /// `LogRateLimitIntervalSec=`/`LogRateLimitBurst=`).
        case rateLimit = "rate_limit"
        /// The app file's `RateLimit=`/`RateLimitBurst=`: apsiod read the entries and did not send them.
        case apsiodRateLimit = "apsiod_rate_limit"
        /// The journal lost them before they were sent: the entry after which the app's reading
        /// stood was vacuumed, removed or damaged. The count is then at most what lay between: the
        /// journal's entries of every unit, whose sequence numbers are all that is left of them.
        case journalGap = "journal_gap"
    }

    /// The record's own attributes, in order; the caller appends the rest.
    package static func attributes(count: Int64?, cause: Cause, startUnixNano: UInt64?, endUnixNano: UInt64)
        -> [Attribute]
    {
        var attributes: [Attribute] = count.map { [.int(countKey, $0)] } ?? []
        attributes.append(.string(causeKey, cause.rawValue))
        if let startUnixNano { attributes.append(.int(startKey, Int64(clamping: startUnixNano))) }
        attributes.append(.int(endKey, Int64(clamping: endUnixNano)))
        return attributes
    }

    /// How many entries the record says were dropped; nil for any other record, and for one whose
    /// count is not known.
    package static func droppedCount(of record: LogRecord) -> Int64? {
        guard let first = record.attributes.first, first.key == countKey, case .int(let count) = first.value
        else { return nil }
        return count
    }

    /// Whether the record is one of these, its count known or not: never rate-limited, sent
    /// promptly.
    package static func isDropRecord(_ record: LogRecord) -> Bool {
        guard let first = record.attributes.first else { return false }
        return first.key == countKey || first.key == causeKey
    }
}
