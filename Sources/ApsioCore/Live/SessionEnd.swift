/// Why a live session ended (16.3), as the `ended` body's `reason` names it.
package enum SessionEndReason: String, Sendable, Equatable, CaseIterable {
    /// The channel closed or the app moved to the background. No `ended` body follows.
    case closed
    /// `next` answered a `stop`.
    case stop
    /// Paused for 60 seconds.
    case paused
    /// The session's 30 minutes (or a viewer's renewal) ran out.
    case until
    case sessionBytes = "session_bytes"
    case dayBytes = "day_bytes"
}

/// Everything `live.stop` reads. Times are durations on the monotonic clock.
package struct SessionEndInputs: Sendable, Equatable {
    package var channelClosed: Bool
    /// The `stop` of the last `next` answer, when it had one.
    package var stop: String?
    /// How long the session has been paused without a break; zero while live.
    package var pausedFor: Duration
    /// Time left before the session's end; `nil` before the first `next` answer said.
    package var remaining: Duration?
    /// Bodies of `frames` and `results` as sent (compressed), this session and this UTC day.
    package var sessionBytes: Int
    package var dayBytes: Int

    package init(
        channelClosed: Bool = false, stop: String? = nil, pausedFor: Duration = .zero,
        remaining: Duration? = nil, sessionBytes: Int = 0, dayBytes: Int = 0
    ) {
        self.channelClosed = channelClosed
        self.stop = stop
        self.pausedFor = pausedFor
        self.remaining = remaining
        self.sessionBytes = sessionBytes
        self.dayBytes = dayBytes
    }
}

package enum SessionEnd {
    /// The first reason that holds, in the spec's order; `nil` while the session goes on.
    package static func reason(_ inputs: SessionEndInputs, limits: Limits = .spec) -> SessionEndReason? {
        if inputs.channelClosed { return .closed }
        if inputs.stop != nil { return .stop }
        if inputs.pausedFor >= limits.maxPausedTime { return .paused }
        if let remaining = inputs.remaining, remaining <= .zero { return .until }
        if inputs.sessionBytes >= limits.maxSessionBytes { return .sessionBytes }
        if inputs.dayBytes >= limits.maxDayBytes { return .dayBytes }
        return nil
    }
}
