package import ApsioCore
package import ApsioJSON

/// What the live runtime tells the rest of the daemon: the indicator, notices, the raised log
/// level.
package enum LiveHostEvent: Sendable, Equatable {
    case viewers(Int)
    case notice(LiveCommandName)
    case sessionStarted
    case sessionEnded(LiveSessionEnd)
    /// The Unix ms the raised level lasts until; nil when it ended.
    case logLevel(raisedUntilUnixMs: Int64?)
    /// The backend asked for nothing before this Unix ms (`LiveAction.held`); nil: forgotten.
    case held(untilUnixMs: Int64?)
}

/// The daemon side of one app's live runtime.
package protocol LiveHost: Sendable {
    /// Called in order, on the runtime's executor: it must return at once (queue, don't wait).
    func live(_ event: LiveHostEvent)
    /// Writes the day's count where the next launch finds it, before it returns, and says whether
    /// it did: the body it counts goes out next, and only if it did (16.3).
    func keep(_ dayBytes: DayBytes) -> Bool
    /// One process frame of the unit, for `screenshot`; nil when it cannot be read.
    func screenshot() async -> JSONValue?
    /// The attributes of the `apsio.diagnostics` record, after handing the record to ingest; nil on failure.
    func diagnostics(commandID: String) async -> JSONValue?
}
