/// An app's `RateLimit=` and `RateLimitBurst=`: at most `rate` of its unit's journal entries per
/// `interval` on average, and up to `burst` at once after a quiet spell. Measured by the entries'
/// own journal times (`RateLimitBucket`), never by the clock apsiod reads them at.
package struct IngestRateLimit: Sendable, Equatable {
    package enum Interval: String, Sendable, CaseIterable {
        case second = "s"
        case minute = "min"

        package var nanoseconds: UInt64 {
            switch self {
            case .second: 1_000_000_000
            case .minute: 60_000_000_000
            }
        }
    }

    /// Both bounds keep the bucket's arithmetic (`burst` intervals in nanoseconds) far from
    /// overflowing, and are beyond what a unit writes to the journal.
    package static let rates: ClosedRange<Int> = 1...1_000_000
    package static let bursts: ClosedRange<Int> = 1...1_000_000

    package let rate: Int
    package let interval: Interval
    package let burst: Int

    /// nil outside `rates` or `bursts`. Without a burst, one interval's worth: `rate`.
    package init?(rate: Int, per interval: Interval, burst: Int? = nil) {
        let burst = burst ?? rate
        guard Self.rates.contains(rate), Self.bursts.contains(burst) else { return nil }
        self.rate = rate
        self.interval = interval
        self.burst = burst
    }

    /// As the app file writes it: `RateLimit=10/s`.
    package var description: String { "\(rate)/\(interval.rawValue)" }
}
