import ApsioCore
import ApsioJSON
/// One request of the control protocol: a JSON object on one line (docs/control.md).
///
/// `apps` lists app names; empty means every configured app. Names are passed on as sent: the
/// daemon says `unknown_app` for one it does not serve.
package enum ControlRequest: Sendable, Equatable {
    case status(apps: [String])
    /// Answered with `ok`, then event lines until the client closes.
    case watch(apps: [String])
    case apps
    case allowLive(Bool, apps: [String])
    case consent(ControlConsentChoice, apps: [String])
    case dataSaver(Bool)
    case reload
    case version

    /// A request line may not be longer than this, its newline included: a request names a
    /// command and a few apps, and a peer must not make the daemon buffer more.
    package static let maxLineBytes = 4096
    /// Names in one request; each is at most 255 bytes, and the line's limit binds first anyway.
    package static let maxApps = 64

    package var command: String {
        switch self {
        case .status: "status"
        case .watch: "watch"
        case .apps: "apps"
        case .allowLive: "allow-live"
        case .consent: "consent"
        case .dataSaver: "data-saver"
        case .reload: "reload"
        case .version: "version"
        }
    }

    /// Whether the request changes a setting, and so needs root or the group `apsio`.
    package var changesSettings: Bool {
        switch self {
        case .allowLive, .consent, .dataSaver, .reload: true
        case .status, .watch, .apps, .version: false
        }
    }

    package var namedApps: [String] {
        switch self {
        case .status(let apps), .watch(let apps), .allowLive(_, let apps), .consent(_, let apps): apps
        case .apps, .dataSaver, .reload, .version: []
        }
    }

    // MARK: Reading

    /// Reads one line (without its newline). Strict: anything that is not exactly a request of
    /// this protocol is refused with the code a script can branch on and a message naming the fault.
    /// `maxLineBytes` is the protocol's, but for tests and the fuzzer, which reach the limit with
    /// short lines.
    package static func parse(_ line: [UInt8], maxLineBytes: Int = maxLineBytes) throws(ControlError) -> ControlRequest {
        guard line.count < maxLineBytes else {
            throw ControlError(.tooLarge, "a request line is at most \(maxLineBytes) bytes")
        }
        let value: JSONValue
        do {
            value = try JSONParser(maxBytes: maxLineBytes, maxDepth: 4).parse(line)
        } catch {
            throw ControlError(.badRequest, "the request is \(error)")
        }
        guard case .object(let members) = value else {
            throw ControlError(.badRequest, "a request is a JSON object")
        }
        guard let commandValue = members["command"] else {
            throw ControlError(.badRequest, "a request needs \"command\"")
        }
        guard let command = commandValue.stringValue else {
            throw ControlError(.badRequest, "\"command\" is a string")
        }
        let request: ControlRequest
        let allowed: Set<String>
        switch command {
        case "status":
            request = .status(apps: try apps(members))
            allowed = ["apps"]
        case "watch":
            request = .watch(apps: try apps(members))
            allowed = ["apps"]
        case "apps":
            request = .apps
            allowed = []
        case "allow-live":
            request = .allowLive(try flag("on", members), apps: try apps(members))
            allowed = ["on", "apps"]
        case "consent":
            guard let text = members["choice"]?.stringValue, let choice = ControlConsentChoice(rawValue: text) else {
                throw ControlError(.badRequest, "consent needs \"choice\": \"grant\" or \"deny\"")
            }
            request = .consent(choice, apps: try apps(members))
            allowed = ["choice", "apps"]
        case "data-saver":
            request = .dataSaver(try flag("on", members))
            allowed = ["on"]
        case "reload":
            request = .reload
            allowed = []
        case "version":
            request = .version
            allowed = []
        default:
            throw ControlError(.unknownCommand, "no command \"\(UTF8Cut.cut(command, maxBytes: 64))\"; see docs/control.md")
        }
        for key in members.keys.sorted() where key != "command" && !allowed.contains(key) {
            throw ControlError(.badRequest, "\(command) takes no \"\(UTF8Cut.cut(key, maxBytes: 64))\"")
        }
        return request
    }

    private static func flag(_ key: String, _ members: [String: JSONValue]) throws(ControlError) -> Bool {
        guard let value = members[key] else { throw ControlError(.badRequest, "the request needs \"\(key)\": true or false") }
        guard let flag = value.boolValue else { throw ControlError(.badRequest, "\"\(key)\" is true or false") }
        return flag
    }

    private static func apps(_ members: [String: JSONValue]) throws(ControlError) -> [String] {
        guard let value = members["apps"] else { return [] }
        guard let items = value.arrayValue else { throw ControlError(.badRequest, "\"apps\" is an array of app names") }
        guard items.count <= maxApps else { throw ControlError(.tooLarge, "a request names at most \(maxApps) apps") }
        var names: [String] = []
        for item in items {
            guard let name = item.stringValue, !name.isEmpty else {
                throw ControlError(.badRequest, "\"apps\" is an array of app names")
            }
            if !names.contains(name) { names.append(name) }
        }
        return names
    }

    // MARK: Writing

    /// The request as one line, newline included.
    package var line: [UInt8] {
        var members: [String: JSONValue] = ["command": .string(command)]
        switch self {
        case .status(let apps), .watch(let apps):
            if !apps.isEmpty { members["apps"] = .array(apps.map(JSONValue.string)) }
        case .allowLive(let on, let apps):
            members["on"] = .bool(on)
            if !apps.isEmpty { members["apps"] = .array(apps.map(JSONValue.string)) }
        case .consent(let choice, let apps):
            members["choice"] = .string(choice.rawValue)
            if !apps.isEmpty { members["apps"] = .array(apps.map(JSONValue.string)) }
        case .dataSaver(let on):
            members["on"] = .bool(on)
        case .apps, .reload, .version:
            break
        }
        return JSONWriter.encode(.object(members)) + [0x0A]
    }
}
