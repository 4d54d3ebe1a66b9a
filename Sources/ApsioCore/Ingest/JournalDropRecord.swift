/// The record that stands for entries of the app's unit that were dropped: journald's rate limit
/// kept them from the journal and it wrote a note saying how many, or the app's own `RateLimit=`
/// dropped them on their way out (`RateLimitDrops`). It goes out in the app's stream
/// like any record (severity WARN), and its attributes are what a backend, `apsioctl status` and
/// the viewer know it by (docs/otlp.md, "Entries journald dropped"). Their keys are lowercase and
/// dotted, which no journald field name can be, so an app's own field never passes for one.
package enum JournalDropRecord {
    /// How many entries were dropped (int). Always the record's first attribute, which is how
    /// `droppedCount` tells the record from others at the cost of one comparison.
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
    }

    /// The record's own attributes, in order; the caller appends the rest.
    package static func attributes(count: Int64, cause: Cause, startUnixNano: UInt64?, endUnixNano: UInt64)
        -> [Attribute]
    {
        var attributes: [Attribute] = [.int(countKey, count), .string(causeKey, cause.rawValue)]
        if let startUnixNano { attributes.append(.int(startKey, Int64(clamping: startUnixNano))) }
        attributes.append(.int(endKey, Int64(clamping: endUnixNano)))
        return attributes
    }

    /// How many entries the record says were dropped; nil for any other record.
    package static func droppedCount(of record: LogRecord) -> Int64? {
        guard let first = record.attributes.first, first.key == countKey, case .int(let count) = first.value
        else { return nil }
        return count
    }
}
