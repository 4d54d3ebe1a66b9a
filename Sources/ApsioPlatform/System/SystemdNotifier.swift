internal import CSystemd

#if canImport(Glibc)
internal import Glibc
#endif

/// Tells the service manager how the daemon is doing (sd_notify(3)): ready once its sockets are
/// bound, a one-line status for `systemctl status`, the watchdog's keep-alive, and stopping.
/// Outside systemd (no `NOTIFY_SOCKET`) every call does nothing, so the daemon runs the same by hand.
package struct SystemdNotifier: Sendable {
    /// Whether a service manager listens; false when started by hand or in tests.
    package let isSupervised: Bool
    /// The keep-alive interval the manager asked for (`WatchdogSec=`) halved, as sd_watchdog_enabled(3)
    /// advises; nil when no watchdog is set for this process.
    package let watchdogInterval: Duration?

    package init() {
        isSupervised = getenv("NOTIFY_SOCKET") != nil
        var microseconds: UInt64 = 0
        if sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 {
            watchdogInterval = .microseconds(Int64(microseconds / 2))
        } else {
            watchdogInterval = nil
        }
    }

    package func ready(status: String) { send("READY=1\nSTATUS=" + Self.oneLine(status)) }

    package func status(_ text: String) { send("STATUS=" + Self.oneLine(text)) }

    package func watchdog() { send("WATCHDOG=1") }

    /// Reloading the configuration: the manager shows `reloading` until `ready(status:)` comes again.
    package func reloading(monotonicMicroseconds: UInt64) {
        send("RELOADING=1\nMONOTONIC_USEC=\(monotonicMicroseconds)")
    }

    package func stopping(status: String) { send("STOPPING=1\nSTATUS=" + Self.oneLine(status)) }

    private func send(_ state: String) {
        guard isSupervised else { return }
        // A failed notification cannot be reported anywhere better than the journal the manager
        // already watches; the manager's own timeout is what acts on it.
        _ = sd_notify(0, state)
    }

    /// A newline would start another assignment in the notification: the status stays one line.
    static func oneLine(_ text: String) -> String {
        String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 }.prefix(512))
    }
}
