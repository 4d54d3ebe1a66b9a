import ApsioCore

/// A live session as the backend sees it: from the hello that started it to its end.
struct HubSession: Sendable {
    /// Numbers the session among all the hub saw, so that its stream events can be found and
    /// dropped when it ends.
    let number: UInt64
    let startedAt: MonotonicInstant
    /// The last `frames` or `next`; 60 s without either ends the session (16.3).
    var lastActivity: MonotonicInstant
    var firstFramesAt: MonotonicInstant?
    /// The session's end, on the monotonic clock (for `remaining_ms`) and the wall clock (`until`).
    /// Both nil until the first `frames`.
    var untilMono: MonotonicInstant?
    var untilUnixMs: Int64?
    /// Bodies of `frames` and `results` as received (compressed).
    var bytes = 0
    /// `starting` until the first `frames`, then what the device last said: `live` or `paused`.
    var state = "starting"
    var pauseReason: String?

    init(number: UInt64, now: MonotonicInstant) {
        self.number = number
        startedAt = now
        lastActivity = now
    }
}
