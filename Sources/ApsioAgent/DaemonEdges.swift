package import ApsioCore
package import ApsioPOSIX
package import ApsioPlatform

/// What the daemon takes from the world, gathered so tests can hand in their own: the clock, the
/// hash, where its log goes, the service manager, the bus, the utmp file.
package struct DaemonEdges: Sendable {
    package var clock: any AgentClock
    package var hashing: any SHA256Hashing
    package var log: DaemonLog
    package var notifier: SystemdNotifier
    package var bus: BusAddress
    package var utmpPath: String

    package init(
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
