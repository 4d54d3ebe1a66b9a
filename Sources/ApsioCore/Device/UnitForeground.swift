/// The unit-state half of the foreground (LINUX-PROFILE §0).
extension Foreground {
    /// `ActiveState` values in which the service is on its way to answering but not answering yet:
    /// the viewer is told the app is interrupted rather than gone. `refreshing` is systemd 256's
    /// reload of a unit's mount images, a reload by another name.
    package static let interruptedActiveStates: Set<String> = ["reloading", "activating", "refreshing"]

    /// `active` and not frozen is active; `reloading`, `activating` (and `refreshing`) is
    /// interrupted, and so is `active` under any freezer state but `running`; anything else is the
    /// background.
    ///
    /// `thawing` counts as frozen: the processes do not run until the thaw completes, and systemd
    /// says `running` once they do, so the channel opens when the service can answer. A freezer
    /// state this code does not know (systemd 256 added `frozen-by-parent` and
    /// `freezing-by-parent`) is read as frozen too: calling a stopped service active would open the
    /// channel to something that cannot answer. Freezing does not lift an inactive unit out of the
    /// background.
    package init(activeState: String, freezerState: String?) {
        switch activeState {
        case "active":
            self = Self.isRunning(freezerState) ? .active : .interrupted
        case _ where Self.interruptedActiveStates.contains(activeState):
            self = .interrupted
        default:
            self = .background
        }
    }

    /// A unit whose state is unknown (the bus is gone, systemd is gone) is in the background: that
    /// closes the live channel, the safe side.
    package init(unitState: UnitState?) {
        guard let unitState else {
            self = .background
            return
        }
        self.init(activeState: unitState.activeState, freezerState: unitState.freezerState)
    }

    /// No freezer state at all is a systemd too old to freeze, hence running.
    private static func isRunning(_ freezerState: String?) -> Bool {
        freezerState == nil || freezerState == "" || freezerState == "running"
    }
}
