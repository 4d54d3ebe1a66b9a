/// The command ids the device ran, with their results, for 2 minutes and in memory only (16.4):
/// a command that comes twice runs once and is answered from here the second time.
package struct CommandMemory: Sendable {
    private var kept: [String: (result: CommandResult, until: MonotonicInstant)] = [:]
    /// Commands handed to the runtime and not finished yet: a repeat is ignored, not run again.
    private var running: Set<String> = []

    package init() {}

    package func result(for id: String, at now: MonotonicInstant) -> CommandResult? {
        guard let entry = kept[id], now < entry.until else { return nil }
        return entry.result
    }

    package func isRunning(_ id: String) -> Bool { running.contains(id) }

    package mutating func started(_ id: String) { running.insert(id) }

    package mutating func finished(_ result: CommandResult, at now: MonotonicInstant, keptFor: Duration) {
        running.remove(result.id)
        kept[result.id] = (result, now + keptFor)
    }

    /// Forgets what is past its 2 minutes, so the memory stays bounded by what 2 minutes can bring.
    package mutating func prune(at now: MonotonicInstant) {
        kept = kept.filter { now < $0.value.until }
    }

    package var count: Int { kept.count }

    /// What outlives the app's run (`LiveChannelMemory`): the results kept, not the commands
    /// running, which stop with it.
    package var finishedOnly: CommandMemory {
        var memory = self
        memory.running = []
        return memory
    }
}
