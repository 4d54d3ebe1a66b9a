/// The state of one live session (16.3), from its first `frames` to its end.
struct LiveSession: Sendable {
    enum Phase: Sendable, Equatable {
        case live
        /// Paused since `since`; `reported` once the `paused` body went out.
        case paused(PauseReason, since: MonotonicInstant, reported: Bool)
    }

    var phase: Phase = .live
    /// The session's end on the monotonic clock: 30 minutes after the first `frames` until a `next`
    /// answer's `remaining_ms` says otherwise.
    var until: MonotonicInstant
    /// A `next` answer's `stop`.
    var stop: String?
    /// Bodies of `frames` and `results` as sent this session.
    var bytes = 0
    var viewers: Int

    var nextInFlight: LiveRequestID?
    var lastNextOpenedAt: MonotonicInstant?
    var framesInFlight: LiveRequestID?
    /// A `live` body is owed: at the start, and on resuming from a pause.
    var owesLiveBody = true

    var lastUploadAt: MonotonicInstant?
    var lastMetricsOnlyUploadAt: MonotonicInstant?
    var pendingLines: [LiveLine] = []
    var droppedLines = 0
    var metrics: [UInt8]?
    var metricsDirty = false
    var wireframe: [UInt8]?
    var wireframeDirty = false

    /// After a failure without a `Retry-After`: no `next`, `frames` or `results` before this. The
    /// device's own backoff, so it ends with the session; a moment the backend names is the
    /// channel's (`BackendHold`).
    var networkPausedUntil: MonotonicInstant?
    var networkFailures = 0

    init(startedAt now: MonotonicInstant, viewers: Int, limits: Limits) {
        until = now + limits.sessionLength
        self.viewers = viewers
    }

    var isLive: Bool { phase == .live }

    func pausedFor(at now: MonotonicInstant) -> Duration {
        if case .paused(_, let since, _) = phase { return now - since }
        return .zero
    }

    var hasNewData: Bool { !pendingLines.isEmpty || wireframeDirty }
}

/// A `results` body waiting for its answer, or for its one retry (16.4: "only a results body is
/// sent once more, after the backoff, and only with the current token").
struct PendingResult: Sendable {
    var result: CommandResult
    var attempts: Int
    var dueAt: MonotonicInstant
    var inFlight: LiveRequestID?
    var sentWith: DeviceToken?
}
