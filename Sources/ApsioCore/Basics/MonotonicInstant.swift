/// A point on the monotonic clock, as an offset from an origin the caller chose (boot, or zero in
/// tests). Session ends, backoffs and presence are measured on it (LINUX-PROFILE §16 "Clocks"):
/// a wall clock stepped by NTP must not end a session early or keep it open late.
package struct MonotonicInstant: Sendable, Hashable, Comparable, CustomStringConvertible {
    package var sinceOrigin: Duration

    package init(_ sinceOrigin: Duration) { self.sinceOrigin = sinceOrigin }

    package static let origin = MonotonicInstant(.zero)

    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.sinceOrigin < rhs.sinceOrigin }
    package static func + (lhs: Self, rhs: Duration) -> Self { Self(lhs.sinceOrigin + rhs) }
    package static func - (lhs: Self, rhs: Duration) -> Self { Self(lhs.sinceOrigin - rhs) }
    package static func - (lhs: Self, rhs: Self) -> Duration { lhs.sinceOrigin - rhs.sinceOrigin }

    package var description: String { "mono+\(sinceOrigin)" }
}

/// Both clocks at one moment: the monotonic one for durations, the wall one (Unix milliseconds) for
/// `t`, `at`, `until`, tester expiry and the UTC day.
package struct LiveNow: Sendable, Equatable {
    package var mono: MonotonicInstant
    package var wallUnixMs: Int64

    package init(mono: MonotonicInstant, wallUnixMs: Int64) {
        self.mono = mono
        self.wallUnixMs = wallUnixMs
    }

    package var wallUnixSeconds: Int64 { wallUnixMs >= 0 ? wallUnixMs / 1000 : (wallUnixMs - 999) / 1000 }

    /// Days since 1970-01-01 in UTC: the calendar day the byte cap counts in.
    package var utcDay: Int64 { wallUnixMs >= 0 ? wallUnixMs / 86_400_000 : (wallUnixMs - 86_399_999) / 86_400_000 }

    package func advanced(by duration: Duration) -> LiveNow {
        LiveNow(mono: mono + duration, wallUnixMs: wallUnixMs + duration.wholeMilliseconds)
    }
}
