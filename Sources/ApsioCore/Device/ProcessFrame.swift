/// The wireframe of a service (10, LINUX-PROFILE §10): what an operator looks at first. Always a
/// full frame, never a delta; `Equatable`, so a sender keeps the last one and sends only on change.
/// Processes are ordered by pid and sockets by transport, port and address, so equal states give
/// equal frames.
package struct ProcessFrame: Sendable, Equatable, Codable {
    /// `active_state`: the unit's `ActiveState` (`active`, `reloading`, `inactive`, `failed`, …).
    package var activeState: String
    /// `sub_state`: the unit's `SubState` (`running`, `exited`, `dead`, …).
    package var subState: String
    /// `tasks`: the cgroup's `pids.current` (what `systemctl status` shows as Tasks), else the sum of
    /// the listed processes' threads.
    package var tasks: Int?
    /// `memory_bytes`: the cgroup's `memory.current` (v2) or `memory.usage_in_bytes` (v1), page
    /// cache included, as `systemctl status` shows it; absent without a memory controller.
    package var memoryBytes: Int64?
    package var processes: [ProcessEntry]
    /// `omitted_processes`: processes past the frame's cap, counted but not listed.
    package var omittedProcesses: Int
    /// `sockets`: the unit's listening sockets; absent where the kernel cannot tell a socket's cgroup.
    package var sockets: [ListeningSocket]?

    enum CodingKeys: String, CodingKey {
        case activeState = "active_state"
        case subState = "sub_state"
        case tasks
        case memoryBytes = "memory_bytes"
        case processes
        case omittedProcesses = "omitted_processes"
        case sockets
    }

    package init(
        activeState: String, subState: String, tasks: Int?, memoryBytes: Int64?, processes: [ProcessEntry],
        omittedProcesses: Int = 0, sockets: [ListeningSocket]?
    ) {
        self.activeState = activeState
        self.subState = subState
        self.tasks = tasks
        self.memoryBytes = memoryBytes
        self.processes = processes.sorted { $0.pid < $1.pid }
        self.omittedProcesses = omittedProcesses
        self.sockets = sockets?.sorted()
    }
}
