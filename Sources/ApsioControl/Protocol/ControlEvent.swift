package import ApsioCore
import ApsioJSON
/// One line of a `watch` stream after its `{"ok":true}`: something the indicator shows changed.
package enum ControlEvent: Sendable, Equatable {
    /// An app's status, whole: first one for each watched app, then one whenever any of it changes.
    case status(ControlAppStatus)
    /// A viewer's command ran (16.2: each command shows a notice). `until` is when a raised log
    /// level ends.
    case notice(app: String, command: LiveCommandName, atUnixMs: Int64, untilUnixMs: Int64?)
    /// A live session of the app ended, with 16.3's reason (`until`, `stop`, `paused`,
    /// `session_bytes`, `day_bytes`, `closed`) or `token_lost`.
    case ended(app: String, reason: String)
    /// Data Saver was turned on or off (machine-wide).
    case dataSaver(Bool)

    /// The app the event is about; nil for machine-wide events.
    package var app: String? {
        switch self {
        case .status(let status): status.name
        case .notice(let app, _, _, _), .ended(let app, _): app
        case .dataSaver: nil
        }
    }

    /// The event as one line, newline included.
    package var line: [UInt8] {
        let members: [String: JSONValue]
        switch self {
        case .status(let status):
            members = ["event": .string("status"), "app": status.json]
        case .notice(let app, let command, let at, let until):
            members = [
                "event": .string("notice"), "app": .string(app), "command": .string(command.rawValue),
                "at": .number(Double(at)), "until": until.map { .number(Double($0)) } ?? .null,
            ]
        case .ended(let app, let reason):
            members = ["event": .string("ended"), "app": .string(app), "reason": .string(reason)]
        case .dataSaver(let on):
            members = ["event": .string("data_saver"), "on": .bool(on)]
        }
        return JSONWriter.encode(.object(members)) + [0x0A]
    }

    /// Reads an event line; nil for an event this client does not know (a newer daemon's), which
    /// a client skips.
    package static func parse(_ line: [UInt8]) throws(ControlError) -> ControlEvent? {
        let value: JSONValue
        do {
            value = try JSONParser(maxBytes: ControlAnswer.maxLineBytes).parse(line)
        } catch {
            throw ControlError(.badAnswer, "the event is \(error)")
        }
        let reader = try ControlFieldReader(value, what: "an event")
        switch try reader.string("event") {
        case "status":
            guard let app = reader.members["app"] else { throw ControlError(.badAnswer, "a status event needs \"app\"") }
            return .status(try ControlAppStatus(json: app))
        case "notice":
            guard let command = LiveCommandName(rawValue: try reader.string("command")) else { return nil }
            return .notice(
                app: try reader.string("app"), command: command, atUnixMs: Int64(try reader.int("at")),
                untilUnixMs: try reader.optionalInt("until").map(Int64.init))
        case "ended":
            return .ended(app: try reader.string("app"), reason: try reader.string("reason"))
        case "data_saver":
            return .dataSaver(try reader.bool("on"))
        default:
            return nil
        }
    }
}

extension ControlEvent {
    /// The event that tells a watcher a live session ended, in the words of `LiveSessionEnd`.
    package static func ended(app: String, _ end: LiveSessionEnd) -> ControlEvent {
        switch end {
        case .reason(let reason): .ended(app: app, reason: reason.rawValue)
        case .tokenLost: .ended(app: app, reason: "token_lost")
        }
    }
}
