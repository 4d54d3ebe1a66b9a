public import ApsioCore
public import ApsioPOSIX
public import ApsioPlatform

/// What the daemon takes from the world, gathered so tests can hand in their own: the clock, the
/// hash, where its log goes, the service manager, the bus, the utmp file.
public struct DaemonEdges: Sendable {
    public var clock: any AgentClock
    public var hashing: any SHA256Hashing
    public var log: DaemonLog
    public var notifier: SystemdNotifier
    public var bus: BusAddress
    public var utmpPath: String

    public init(
        clock: any AgentClock, hashing: any SHA256Hashing, log: DaemonLog, notifier: SystemdNotifier = SystemdNotifier(),
        bus: BusAddress = .system, utmpPath: String = "/run/utmp"
    ) {
        self.clock = clock
        self.hashing = hashing
        self.log = log
        self.notifier = notifier
        self.bus = bus
        self.utmpPath = utmpPath
    }
}
