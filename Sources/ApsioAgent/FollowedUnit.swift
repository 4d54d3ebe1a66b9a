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
    /// What was read of the main executable (`service.version`, `app.build_id`, `apsio.storage.app`).
    var executable: ExecutableFacts?

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
        switch (known?.executable, state.mainPID) {
        case (let executable?, _):
            return "restarted; its unit's state and main executable carried over (\(state.activeState), \(executable.path))"
        case (nil, _?):
            return "restarted; its unit's state carried over (\(state.activeState)); its main executable is still being read"
        case (nil, nil):
            return "restarted; its unit's state carried over (\(state.activeState)); the unit has no main process to read"
        }
    }
}
