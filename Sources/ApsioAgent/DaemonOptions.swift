package import ApsioCore
import ApsioNet

/// `apsiod`'s command line (LINUX-PROFILE §R), with systemd's directory variables as defaults.
package struct DaemonOptions: Sendable, Equatable {
    package var configDirectory = "/etc/apsio"
    package var stateDirectory = "/var/lib/apsio"
    package var runtimeDirectory = "/run/apsio"
    /// Read these journal files instead of the system journal (as `journalctl -D`).
    package var journalDirectory: String?
    package var sysfs = "/sys"
    package var procfs = "/proc"
    /// From `--log-level`; nil leaves it to `apsiod.conf`.
    package var logLevel: LogLevel?
    /// `HTTPS_PROXY`, `NO_PROXY` and their kin as the environment has them (`ProxySettings`).
    package var proxyEnvironment: [String: String] = [:]

    package enum Request: Sendable, Equatable {
        case serve(DaemonOptions)
        case help
        case version
    }

    package struct UsageError: Error, Equatable, CustomStringConvertible {
        package let description: String
    }

    package init() {}

    /// `environment` gives `STATE_DIRECTORY` and `RUNTIME_DIRECTORY` (systemd sets them from
    /// `StateDirectory=` and `RuntimeDirectory=`; with several directories, the first is ours).
    package static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> Request {
        var options = DaemonOptions()
        if let state = environment["STATE_DIRECTORY"]?.split(separator: ":").first { options.stateDirectory = String(state) }
        if let runtime = environment["RUNTIME_DIRECTORY"]?.split(separator: ":").first {
            options.runtimeDirectory = String(runtime)
        }
        for name in ProxySettings.variableNames { options.proxyEnvironment[name] = environment[name] }
        var index = 0
        func value(_ option: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count, !arguments[index].isEmpty else {
                throw UsageError(description: "\(option) needs a value; see 'apsiod --help'")
            }
            return arguments[index]
        }
        func directory(_ option: String) throws(UsageError) -> String {
            let path = try value(option)
            guard path.hasPrefix("/") else {
                throw UsageError(description: "\(option) needs an absolute path, not '\(path)'")
            }
            return path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--help", "-h": return .help
            case "--version": return .version
            case "--config-dir": options.configDirectory = try directory(argument)
            case "--state-dir": options.stateDirectory = try directory(argument)
            case "--runtime-dir": options.runtimeDirectory = try directory(argument)
            case "--journal-dir": options.journalDirectory = try directory(argument)
            case "--sysfs": options.sysfs = try directory(argument)
            case "--procfs": options.procfs = try directory(argument)
            case "--log-level":
                let name = try value(argument)
                guard let level = LogLevel(name: name) else {
                    throw UsageError(description: "--log-level takes debug, info, notice, warning or err, not '\(name)'")
                }
                options.logLevel = level
            default:
                throw UsageError(description: "unknown option '\(argument)'; see 'apsiod --help'")
            }
            index += 1
        }
        return .serve(options)
    }
}
