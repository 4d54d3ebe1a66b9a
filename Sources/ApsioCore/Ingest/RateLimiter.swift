/// One app's `RateLimit=` over its journal entries, in journal order: which entries are kept, and
/// when the record saying how many were dropped (`RateLimitDrops`) goes into the stream. Events
/// in, decisions out, no clock: time is the entries' own (`RateLimitBucket`).
///
/// Drops gather until their record is placed: before the first kept entry written at least one
/// interval after the first of them (so a long flood is one record an interval, not one before
/// every entry let through), or when the caller places it (`takeDrops`) at a batch's end. Until
/// then the journal position may not move past the first dropped entry: a crash would lose what
/// the record says. So while drops gather every position the caller would save is held here
/// instead (`hold`), and the record carries the last of them: once it is accepted, the position
/// moves past everything it stands for.
package struct RateLimiter: Sendable {
    package let limit: IngestRateLimit
    private var bucket: RateLimitBucket
    package private(set) var pending: RateLimitDrops?

    package init(_ limit: IngestRateLimit) {
        self.limit = limit
        bucket = RateLimitBucket(limit)
    }

    package enum Decision: Sendable, Equatable {
        case drop
        /// Kept; `report`, when set, goes into the stream first, in the entry's place before it.
        case keep(report: RateLimitDrops?)
    }

    /// Whether positions are held: drops gather and their record is not placed yet.
    package var holds: Bool { pending != nil }

    /// The entry written at `timeUnixNano`, whose position is `cursor`.
    package mutating func decide(timeUnixNano time: UInt64, cursor: String?) -> Decision {
        guard bucket.admit(atUnixNano: time) else {
            var drops = pending ?? RateLimitDrops(count: 0, firstUnixNano: time, lastUnixNano: time)
            drops.count += 1
            drops.firstUnixNano = min(drops.firstUnixNano, time)
            drops.lastUnixNano = max(drops.lastUnixNano, time)
            if let cursor { drops.cursorAfter = cursor }
            pending = drops
            return .drop
        }
        guard let drops = pending, time >= drops.firstUnixNano, time - drops.firstUnixNano >= limit.interval.nanoseconds
        else { return .keep(report: nil) }
        pending = nil
        return .keep(report: drops)
    }

    /// A position the caller would have saved (an entry the policy kept out, a kept one, the end
    /// of what was read) while drops gather: it is the record's to carry.
    package mutating func hold(_ cursor: String) {
        pending?.cursorAfter = cursor
    }

    /// The drops gathered, their record to be placed now; nil when none.
    package mutating func takeDrops() -> RateLimitDrops? {
        defer { pending = nil }
        return pending
    }
}
