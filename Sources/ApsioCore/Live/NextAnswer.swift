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
}
