/// syslog priorities the daemon logs at, by the names `--log-level` and `LogLevel=` take.
package enum LogLevel: Int, Sendable, CaseIterable {
    // Listed from the most verbose, as `--log-level`'s help and the problems name them.
    case debug = 7
    case info = 6
    case notice = 5
    case warning = 4
    case err = 3

    package init?(name: String) {
        switch name {
        case "err", "error": self = .err
        case "warning": self = .warning
        case "notice": self = .notice
        case "info": self = .info
        case "debug": self = .debug
        default: return nil
        }
    }

    package var name: String {
        switch self {
        case .err: "err"
        case .warning: "warning"
        case .notice: "notice"
        case .info: "info"
        case .debug: "debug"
        }
    }

    /// Whether an entry at this level is logged when `minimum` is the least severe level wanted
    /// (syslog counts down: 3 is more severe than 7).
    package func isLogged(atMinimum minimum: LogLevel) -> Bool { rawValue <= minimum.rawValue }
}
