/// What the live channel asks its runtime to do. Bodies are final: compressed, counted, ready to
/// send. Tokens travel in the action, for the `Apsio-Live-Token` header only.
package enum LiveAction: Sendable, Equatable {
    /// `POST /v1/live/hello`, with the current token when the device holds one.
    case sendHello(LiveRequestID, body: [UInt8], token: DeviceToken?)
    /// `GET /v1/live/next?install=…`.
    case openNext(LiveRequestID, install: String, token: DeviceToken)
    case sendFrames(LiveRequestID, body: [UInt8], token: DeviceToken)
    case sendResults(LiveRequestID, body: [UInt8], token: DeviceToken)
    /// Stop these requests at once: close their connections, deliver no answer.
    case cancel([LiveRequestID])
    /// Run `screenshot` or `diagnostics` and report with `.commandFinished`.
    case runCommand(id: String, name: LiveCommandName)
    /// Show the machine that a command ran (16.2).
    case notice(LiveCommandName)
    /// The number of viewers watching changed; 0 hides the indicator.
    case viewers(Int)
    /// Write the day's count where the next launch finds it, before anything after it in the same
    /// list: a `frames` or `results` body that follows goes out only if this write succeeded, and
    /// the runtime answers `.dayCountKept` when that changes.
    case saveDayBytes(DayBytes)
    /// Log records from DEBUG up, and released through ingest, until this Unix ms (16.6).
    case raiseLogLevel(untilUnixMs: Int64)
    case restoreLogLevel
    case sessionStarted
    case sessionEnded(LiveSessionEnd)
    /// The moment the backend named (`BackendHold`) changed: nothing goes before this Unix ms.
    /// nil when another origin makes the channel forget it. What `apsioctl status` shows, so an
    /// operator learns why the box says nothing.
    case held(untilUnixMs: Int64?)
}

/// How a live session ended, for the indicator and the daemon's own log.
package enum LiveSessionEnd: Sendable, Equatable {
    /// One of 16.3's reasons; an `ended` body was sent for all but `closed` when the network allowed.
    case reason(SessionEndReason)
    /// The token was refused (401) or withdrawn by a hello answer, or replaced: no `ended` body.
    case tokenLost
}

/// What the live channel is told.
package enum LiveEvent: Sendable {
    case allowed(Bool)
    case consent(Bool)
    case killSwitch(Bool)
    case foreground(Foreground)
    case modes(lowPower: Bool, lowData: Bool, dataSaver: Bool)
    /// The policy's entry this install matched, recomputed whenever the policy changes.
    case tester(TesterProof?)
    case identity(LiveIdentity)
    /// The policy's `live.origin` changed: nothing of the old one carries over.
    case originChanged
    /// What the channel of the same app, for the same origin, remembered when a reload restarted
    /// it (`LiveChannelMemory`): told once, right after the origin.
    case recalled(LiveChannelMemory)
    /// The policy's `live.interval_s`: the hello interval until a hello answer names one; once
    /// one has, the last answer's `interval_s` holds and a policy change does not reset it.
    case policyInterval(Duration)
    /// The families on and the `logs` floor (the app file's and the policy's): the channel sends
    /// only what they let through (16.5) and refuses a `screenshot` while `replay` is off.
    case capture(CaptureScope)
    case answered(LiveRequestID, LiveResponse)
    /// A record of the `logs` or `errors` family, after redaction, past the app file's
    /// `MinPriority=`: streamed when the capture scope writes it.
    case record(LogRecord)
    /// One metrics sample, encoded as a JSON object.
    case metrics([UInt8])
    /// The current process frame, encoded as a JSON object; sent only when it changed.
    case wireframe([UInt8])
    case commandFinished(CommandResult)
    /// Whether the last `.saveDayBytes` was written. While it was not, the day counts as spent:
    /// a count that cannot be kept is no count across launches (16.3).
    case dayCountKept(Bool)
    /// A deadline the channel named has come.
    case tick
}
