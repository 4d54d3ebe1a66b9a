/// What changed for the app between two readings of its unit, in the terms the runtime acts on:
/// the foreground (which gates the live channel) and the session (which `session.id` names).
package struct UnitStateChange: Sendable, Equatable {
    /// The new place in the foreground, when it moved.
    package var foreground: Foreground?
    /// The new session, when the unit started a new invocation.
    package var newSession: String?

    package init(foreground: Foreground? = nil, newSession: String? = nil) {
        self.foreground = foreground
        self.newSession = newSession
    }

    package var isEmpty: Bool { foreground == nil && newSession == nil }

    /// `nil` states are unknown ones. A session starts when an invocation id appears that differs
    /// from the last one known: an unknown stretch in between (the bus restarted) does not start a
    /// session by itself, since the same invocation may still be running when the state comes back.
    package static func between(_ old: UnitState?, _ new: UnitState?, lastSession: String?) -> UnitStateChange {
        let before = Foreground(unitState: old)
        let after = Foreground(unitState: new)
        var change = UnitStateChange()
        if before != after { change.foreground = after }
        if let session = new?.sessionID, session != lastSession { change.newSession = session }
        return change
    }
}
