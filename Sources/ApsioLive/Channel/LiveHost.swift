package import ApsioCore

/// What the live runtime tells the rest of the daemon: the indicator, notices, the raised log
/// level, the day's bytes to keep.
package enum LiveHostEvent: Sendable, Equatable {
    case viewers(Int)
    case notice(LiveCommandName)
    case sessionStarted
    case sessionEnded(LiveSessionEnd)
    /// The Unix ms the raised level lasts until; nil when it ended.
    case logLevel(raisedUntilUnixMs: Int64?)
    case dayBytes(DayBytes)
}

/// The daemon side of one app's live runtime.
package protocol LiveHost: Sendable {
    /// Called in order, on the runtime's executor: it must return at once (queue, don't wait),
    /// but for `.dayBytes`, which is kept before it returns: the body it counts goes out next.
    func live(_ event: LiveHostEvent)
    /// One process frame of the unit, for `screenshot`; nil when it cannot be read.
    func screenshot() async -> JSONValue?
    /// The attributes of the `apsio.diagnostics` record, after handing the record to ingest; nil on failure.
    func diagnostics(commandID: String) async -> JSONValue?
}
