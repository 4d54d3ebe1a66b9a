import ApsioCore
import ApsioControl

/// apsioctl's command line, read strictly: a mistake is exit code 2 with one line saying which.
struct Invocation {
    enum Command: Equatable {
        case help(String?)
        case status([AppName])
        case watch([AppName])
        case apps
        case allowLive(Bool, [AppName])
        case consent(ControlConsentChoice, [AppName])
        case dataSaver(Bool)
        case reload
        case version
        /// `--version`: this binary's version alone, as packaging checks ask for it.
        case ownVersion
    }

    var command: Command
    var runtimeDirectory: String
    var stateDirectory: String
    var configDirectory: String
    var json = false

    struct UsageError: Error {
        let message: String
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        // Not $RUNTIME_DIRECTORY or $STATE_DIRECTORY: apsioctl run from another service's unit
        // would find that service's directories there, not apsiod's.
        var runtime = "/run/apsio"
        var state = "/var/lib/apsio"
        var config = "/etc/apsio"
        var json = false
        var help = false
        var words: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                words.append(contentsOf: arguments[index...])
                break
            }
            guard argument.hasPrefix("-"), argument != "-" else {
                words.append(argument)
                continue
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            func value() throws(UsageError) -> String {
                if let inlineValue { return inlineValue }
                guard index < arguments.count else { throw UsageError(message: "\(name) needs a directory") }
                index += 1
                return arguments[index - 1]
            }
            switch name {
            case "--runtime-dir": runtime = try value()
            case "--state-dir": state = try value()
            case "--config-dir": config = try value()
            case "--json" where inlineValue == nil: json = true
            case "--help", "-h": help = true
            case "--version" where inlineValue == nil: words = ["--version"]
            default: throw UsageError(message: "unknown option \(name)")
            }
        }
        for (option, directory) in [("--runtime-dir", runtime), ("--state-dir", state), ("--config-dir", config)]
        where directory.isEmpty {
            throw UsageError(message: "\(option) needs a directory")
        }
        let command: Command
        if help {
            command = .help(words.first)
        } else {
            command = try parseCommand(words)
        }
        return Invocation(command: command, runtimeDirectory: runtime, stateDirectory: state, configDirectory: config, json: json)
    }

    private static func parseCommand(_ words: [String]) throws(UsageError) -> Command {
        guard let name = words.first else { throw UsageError(message: "no command given") }
        let rest = Array(words.dropFirst())
        switch name {
        case "help":
            return .help(rest.first)
        case "--version":
            return .ownVersion
        case "status":
            return .status(try apps(rest))
        case "watch":
            return .watch(try apps(rest))
        case "apps", "reload", "version":
            guard rest.isEmpty else { throw UsageError(message: "\(name) takes no arguments") }
            return name == "apps" ? .apps : name == "reload" ? .reload : .version
        case "allow-live":
            return .allowLive(try onOff(name, rest.first), try apps(Array(rest.dropFirst())))
        case "consent":
            guard let word = rest.first, let choice = ControlConsentChoice(rawValue: word) else {
                throw UsageError(message: "consent needs grant or deny")
            }
            return .consent(choice, try apps(Array(rest.dropFirst())))
        case "data-saver":
            let on = try onOff(name, rest.first)
            guard rest.count == 1 else { throw UsageError(message: "data-saver is machine-wide: it takes on or off only") }
            return .dataSaver(on)
        default:
            throw UsageError(message: "unknown command '\(name)'")
        }
    }

    private static func onOff(_ command: String, _ word: String?) throws(UsageError) -> Bool {
        switch word {
        case "on": return true
        case "off": return false
        default: throw UsageError(message: "\(command) needs on or off")
        }
    }

    private static func apps(_ words: [String]) throws(UsageError) -> [AppName] {
        var apps: [AppName] = []
        for word in words {
            guard let app = try? AppName(word) else {
                throw UsageError(message: "\"\(word)\" is not an app name (letters, digits, '.', '_' and '-')")
            }
            if !apps.contains(app) { apps.append(app) }
        }
        return apps
    }
}
