package import ApsioCore
package import ApsioJSON
extension NextAnswer {
    /// The answer's JSON body, nil when there was none or it was not JSON: no commands, nothing
    /// else said.
    package init(body: JSONValue?, limits: Limits = .spec) {
        var commands: [LiveCommand] = []
        var leftOver = 0
        for item in body?["commands"]?.arrayValue ?? [] {
            guard let id = item["id"]?.stringValue, let name = item["name"]?.stringValue,
                !id.isEmpty, id.utf8.count <= limits.maxCommandIDBytes, name.utf8.count <= limits.maxCommandIDBytes
            else { continue }
            if commands.count == limits.maxCommandsPerAnswer {
                leftOver += 1
                continue
            }
            commands.append(LiveCommand(id: id, name: name, args: item["args"]))
        }
        let stop: String? = switch body?["stop"] {
        case nil, .null?: nil
        case .string(let reason)?: UTF8Cut.cut(reason, maxBytes: 64)
        case .some: "unknown"
        }
        self.init(
            commands: commands, commandsLeftOver: leftOver, viewers: body?["viewers"].map { LiveNumbers.count($0) },
            untilUnixMs: LiveNumbers.milliseconds(body?["until"]), remainingMs: LiveNumbers.milliseconds(body?["remaining_ms"]),
            stop: stop)
    }
}
