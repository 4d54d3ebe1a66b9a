/// How much the daemon says about itself (`[Daemon] LogLevel=`, `--log-level`), by syslog's
/// names as journalctl's `-p` spells them.
public enum DaemonLogLevel: String, Sendable, Equatable, CaseIterable {
    case debug
    case info
    case notice
    case warning
    case err

    /// The syslog priority, 7 (debug) to 3 (err).
    public var priority: Int {
        switch self {
        case .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .err: 3
        }
    }
}
