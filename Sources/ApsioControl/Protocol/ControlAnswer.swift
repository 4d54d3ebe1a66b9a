import ApsioJSON
/// One answer of the control protocol, a JSON object on one line with `"ok"` (docs/control.md).
package enum ControlAnswer: Sendable, Equatable {
    case status(ControlStatus)
    case apps([ControlAppInfo])
    /// `allow-live` and `consent`: the apps whose setting now says what was asked.
    case changed(apps: [String])
    case dataSaver(Bool)
    /// `reload`: what the configuration's files got wrong (path:line: message), empty when nothing.
    case reloaded(problems: [String])
    case version(String)
    /// `watch`: event lines follow until the client closes.
    case watching
    case failed(ControlError)

    /// Answers and events are larger than requests (a status of many apps) but still bounded, so a
    /// client never buffers without limit either.
    package static let maxLineBytes = 1 << 20

    /// The answer as one line, newline included.
    package var line: [UInt8] {
        var members: [String: JSONValue] = ["ok": .bool(true)]
        switch self {
        case .status(let status):
            members["apps"] = .array(status.apps.map(\.json))
            members["data_saver"] = .bool(status.dataSaver)
        case .apps(let apps):
            members["apps"] = .array(apps.map(\.json))
        case .changed(let apps):
            members["apps"] = .array(apps.map(JSONValue.string))
        case .dataSaver(let on):
            members["data_saver"] = .bool(on)
        case .reloaded(let problems):
            members["problems"] = .array(problems.map(JSONValue.string))
        case .version(let version):
            members["version"] = .string(version)
        case .watching:
            break
        case .failed(let error):
            members = ["ok": .bool(false), "error": .string(error.code.rawValue), "message": .string(error.message)]
        }
        return JSONWriter.encode(.object(members)) + [0x0A]
    }

    /// Reads the answer to `request`. A refusal comes back as `.failed`; a line that is not an
    /// answer at all throws `bad_answer`.
    package static func parse(_ line: [UInt8], answering request: ControlRequest) throws(ControlError) -> ControlAnswer {
        let value: JSONValue
        do {
            value = try JSONParser(maxBytes: maxLineBytes).parse(line)
        } catch {
            throw ControlError(.badAnswer, "the answer is \(error)")
        }
        let reader = try ControlFieldReader(value, what: "an answer")
        guard try reader.bool("ok") else {
            let code = (try? reader.string("error")) ?? ControlErrorCode.internal.rawValue
            let message = (try? reader.string("message")) ?? "the daemon refused without saying why"
            return .failed(ControlError(ControlErrorCode(rawValue: code), message))
        }
        switch request {
        case .status:
            var apps: [ControlAppStatus] = []
            for item in try reader.array("apps") { apps.append(try ControlAppStatus(json: item)) }
            return .status(ControlStatus(apps: apps, dataSaver: try reader.bool("data_saver")))
        case .apps:
            var apps: [ControlAppInfo] = []
            for item in try reader.array("apps") { apps.append(try ControlAppInfo(json: item)) }
            return .apps(apps)
        case .allowLive, .consent:
            return .changed(apps: try reader.strings("apps"))
        case .dataSaver:
            return .dataSaver(try reader.bool("data_saver"))
        case .reload:
            return .reloaded(problems: try reader.strings("problems"))
        case .version:
            return .version(try reader.string("version"))
        case .watch:
            return .watching
        }
    }
}
