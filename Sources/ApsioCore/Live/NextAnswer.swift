package import ApsioJSON
/// A 2xx answer to `next` (16.4), read defensively.
package struct NextAnswer: Sendable, Equatable {
    package let commands: [LiveCommand]
    /// The number of commands the answer listed beyond what one answer may carry; they stay
    /// pending on the backend and come again.
    package let commandsLeftOver: Int
    package let viewers: Int?
    /// For the viewers; the device keeps time with `remaining_ms`.
    package let untilUnixMs: Int64?
    package let remainingMs: Int64?
    /// `viewers_left`, `ended`, `tester_removed`, or any other non-null value: the session ends.
    package let stop: String?

    package init(
        commands: [LiveCommand] = [], commandsLeftOver: Int = 0, viewers: Int? = nil, untilUnixMs: Int64? = nil,
        remainingMs: Int64? = nil, stop: String? = nil
    ) {
        self.commands = commands
        self.commandsLeftOver = commandsLeftOver
        self.viewers = viewers
        self.untilUnixMs = untilUnixMs
        self.remainingMs = remainingMs
        self.stop = stop
    }

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
        self.commands = commands
        commandsLeftOver = leftOver
        viewers = body?["viewers"].map { LiveNumbers.count($0) }
        untilUnixMs = LiveNumbers.milliseconds(body?["until"])
        remainingMs = LiveNumbers.milliseconds(body?["remaining_ms"])
        switch body?["stop"] {
        case nil, .null?: stop = nil
        case .string(let reason)?: stop = UTF8Cut.cut(reason, maxBytes: 64)
        case .some: stop = "unknown"
        }
    }
}
