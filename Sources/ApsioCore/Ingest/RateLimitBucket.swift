/// The token bucket behind `RateLimit=`: events in (an entry's journal time), decisions out (keep
/// or drop), no clock of its own.
///
/// Time is the entries' own (`__REALTIME_TIMESTAMP`), so a catch-up that reads hours of backlog in
/// seconds keeps exactly what the same entries would have kept read live, and the same entries
/// from the same state always get the same decisions. The bucket starts full, as after a quiet
/// spell. An entry older than the newest seen (the journal interleaves writers, a clock was set
/// back) refills nothing: time never runs backwards for the bucket, so no reordering earns tokens.
///
/// Integer arithmetic only, in units where one entry costs `interval` nanoseconds: one nanosecond
/// of entry time earns `rate` units, the bucket holds `burst` entries.
package struct RateLimitBucket: Sendable, Equatable {
    private let cost: UInt64
    private let earnedPerNanosecond: UInt64
    private let capacity: UInt64
    private var tokens: UInt64
    /// The newest entry time seen; nil before the first entry.
    private var latest: UInt64?

    package init(_ limit: IngestRateLimit) {
        cost = limit.interval.nanoseconds
        earnedPerNanosecond = UInt64(limit.rate)
        // At most 10^6 × 6·10^10: well inside UInt64.
        capacity = UInt64(limit.burst) * cost
        tokens = capacity
    }

    /// Whether the entry written at `timeUnixNano` is kept; a kept entry takes its token.
    package mutating func admit(atUnixNano time: UInt64) -> Bool {
        if let latest, time > latest {
            let (earned, overflow) = (time - latest).multipliedReportingOverflow(by: earnedPerNanosecond)
            let (sum, sumOverflow) = tokens.addingReportingOverflow(earned)
            tokens = overflow || sumOverflow ? capacity : min(capacity, sum)
        }
        latest = max(latest ?? time, time)
        guard tokens >= cost else { return false }
        tokens -= cost
        return true
    }
}
