import ApsioCtl

/// A wall clock that stands still in a zone of the test's choosing, so that stamps and "since"
/// times are known in advance whatever `TZ` the test runs under; its waits return at once.
struct FixedCtlClock: CtlClock {
    /// 2026-03-01 14:02:09 UTC.
    var unixMs: Int64 = 1_772_373_729_000
    var offsetSeconds = 0
    /// Told of each wait instead of sitting it out: where a test does what the wait was for.
    var onSleep: (@Sendable (Duration) async -> Void)?

    func nowUnixMs() -> Int64 { unixMs }
    func utcOffsetSeconds(atUnixMs unixMs: Int64) -> Int { offsetSeconds }
    func sleep(for duration: Duration) async { await onSleep?(duration) }
}
