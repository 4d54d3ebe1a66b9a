import ApsioCore

/// What the daemon knows of one unit it follows on the bus, whichever apps serve it. Kept beside
/// the apps rather than in them, so that an app started while the unit runs (restarted by a
/// reload, its file edited) begins from what is known instead of waiting for the unit to change,
/// which may not happen for days.
struct FollowedUnit: Sendable, Equatable {
    /// The last state the bus gave; nil while unknown.
    var state: UnitState?
    /// The main process whose executable was last asked for: read once per process.
    var executableAskedFor: Int32?
    /// The main process whose executable was last looked at, whether or not it could be read.
    var executableReadFor: Int32?
    /// What was last read of the main executable (`service.version`, `app.build_id`,
    /// `apsio.storage.app`).
    var executable: ExecutableFacts?

    /// Why an app of this unit need wait no longer for its Resource; nil while the executable of
    /// its main process is still being read. An unknown state (the bus said it cannot tell) or no
    /// main process leaves nothing to wait for.
    var resourceSettledBecause: String? {
        guard let state else { return "its unit's state is unknown" }
        guard let pid = state.mainPID else { return "its unit has no main process" }
        return executableReadFor == pid ? "the executable of its main process (\(pid)) was looked at" : nil
    }

    /// The info line for an app restarted by a reload: what it starts knowing of its unit, or why
    /// nothing. `previousUnit` is the unit its file named before.
    static func restartNote(unit: String, previousUnit: String, known: FollowedUnit?) -> String {
        guard unit == previousUnit else {
            if let state = known?.state {
                return "restarted on \(unit) (was \(previousUnit)): starts from that unit's state as the daemon follows it (\(state.activeState))"
            }
            return "restarted on \(unit) (was \(previousUnit)): nothing of \(previousUnit) carries over; \(unit)'s state is read from the bus"
        }
        guard let state = known?.state else {
            return "restarted; its unit's state is not known (the bus has not answered), so it starts in the background until it is"
        }
        if let executable = known?.executable {
            return "restarted; its unit's state and main executable carried over (\(state.activeState), \(executable.path))"
        }
        let carried = "restarted; its unit's state carried over (\(state.activeState))"
        guard let pid = state.mainPID else { return carried + "; the unit has no main process to read" }
        return carried + (known?.executableReadFor == pid
            ? "; the executable of its main process cannot be found" : "; its main executable is still being read")
    }
}
