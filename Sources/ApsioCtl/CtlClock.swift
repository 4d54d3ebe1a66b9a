/// The wall clock and the machine's time zone, which apsioctl reads to stamp `watch` lines and to
/// say "since 14:02", and the waits between asking a busy daemon again; behind a protocol so a
/// test fixes the time instead of depending on `TZ`, and sees the waits instead of sitting them out.
package protocol CtlClock: Sendable {
    /// Now, in milliseconds since the Unix epoch.
    func nowUnixMs() -> Int64
    /// How far local time is ahead of UTC at `unixMs`, in seconds (the zone and its summer time).
    func utcOffsetSeconds(atUnixMs unixMs: Int64) -> Int
    /// Waits `duration` (less when the task is cancelled).
    func sleep(for duration: Duration) async
}

/// A local time of day to the second.
struct LocalTimeOfDay: Equatable {
    var hour: Int
    var minute: Int
    var second: Int

    /// "14:02:09", as `watch` stamps its lines.
    var description: String {
        let two = { (value: Int) in (value < 10 ? "0" : "") + String(value) }
        return "\(two(hour)):\(two(minute)):\(two(second))"
    }
}

extension CtlClock {
    func timeOfDay(unixMs: Int64) -> LocalTimeOfDay {
        let local = Int(unixMs / 1000) + utcOffsetSeconds(atUnixMs: unixMs)
        // Before 1970 the remainder is negative; the time of day is not.
        let seconds = (local % 86_400 + 86_400) % 86_400
        return LocalTimeOfDay(hour: seconds / 3600, minute: seconds / 60 % 60, second: seconds % 60)
    }
}
