/// What systemd says about one app's unit, as its D-Bus properties read (LINUX-PROFILE §0, §3, §7).
///
/// Strings are kept as systemd spells them, so a state a newer systemd invents still reaches the
/// mapping (which reads anything it does not know as the background) and the operator's status.
package struct UnitState: Sendable, Equatable {
    /// `LoadState`: `loaded`, `not-found`, `masked`, … `nil` when the unit object gave none.
    package var loadState: String?
    /// `ActiveState`: `active`, `reloading`, `inactive`, `failed`, `activating`, `deactivating`, …
    package var activeState: String
    /// `SubState`, for the operator (a process frame shows it); the mapping does not read it.
    package var subState: String?
    /// `FreezerState`: `running`, `freezing`, `frozen`, `thawing` (systemd 246 and later); `nil`
    /// on an older systemd, which cannot freeze a unit.
    package var freezerState: String?
    /// `InvocationID` as 32 lowercase hex characters; `nil` when the unit has never run.
    package var invocationID: String?
    /// `MainPID`; `nil` when there is no main process (systemd says 0).
    package var mainPID: Int32?
    /// `ControlGroup`, the unit's cgroup path below the cgroup root; `nil` when it has none.
    package var controlGroup: String?
    /// `StateDirectory=` and `CacheDirectory=`, as written (relative to /var/lib and /var/cache).
    package var stateDirectories: [String]
    package var cacheDirectories: [String]

    package init(
        loadState: String? = nil, activeState: String, subState: String? = nil, freezerState: String? = nil,
        invocationID: String? = nil, mainPID: Int32? = nil, controlGroup: String? = nil,
        stateDirectories: [String] = [], cacheDirectories: [String] = []
    ) {
        self.loadState = loadState
        self.activeState = activeState
        self.subState = subState
        self.freezerState = freezerState
        self.invocationID = invocationID
        self.mainPID = mainPID
        self.controlGroup = controlGroup
        self.stateDirectories = stateDirectories
        self.cacheDirectories = cacheDirectories
    }

    /// A unit systemd has no file for: it exists only as a name, and is never in the foreground.
    package static let notFound = UnitState(loadState: "not-found", activeState: "inactive", subState: "dead")

    /// `session.id`: the invocation written as a UUID (LINUX-PROFILE §3).
    package var sessionID: String? {
        invocationID.flatMap(SessionID.fromInvocationID)
    }

    /// The place in the foreground this state maps to.
    package var foreground: Foreground { Foreground(unitState: self) }
}
