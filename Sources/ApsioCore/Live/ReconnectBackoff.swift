/// How long to wait before connecting again to a peer that went away: doubling from `initial` up to
/// `maximum`, and back to `initial` once a connection held. A value, so the schedule is tested
/// without waiting.
package struct ReconnectBackoff: Sendable, Equatable {
    package let initial: Duration
    package let maximum: Duration
    private var upcoming: Duration

    package init(initial: Duration = .milliseconds(250), maximum: Duration = .seconds(30)) {
        precondition(initial > .zero && maximum >= initial, "backoff needs 0 < initial <= maximum")
        self.initial = initial
        self.maximum = maximum
        upcoming = initial
    }

    /// The wait before the next attempt; each call doubles the one after, up to `maximum`.
    package mutating func nextDelay() -> Duration {
        let delay = upcoming
        upcoming = min(upcoming * 2, maximum)
        return delay
    }

    /// A connection came up and did its work: the next failure waits `initial` again.
    package mutating func reset() {
        upcoming = initial
    }
}
