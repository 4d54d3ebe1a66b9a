package import ApsioCore
internal import Glibc

/// Process frames (LINUX-PROFILE §10) of a unit: its state, tasks, memory, process tree and
/// listening sockets. Everything read is world-readable, so the unprivileged daemon sees what root
/// would: `/proc/PID/stat` and the first field of `/proc/PID/cmdline`, never `environ`, never the
/// arguments. Keeps the previous frame's CPU times to give each process's CPU percent.
package struct ProcessFrameReader: Sendable {
    package var roots: SysfsRoots
    package var limits: ReadLimits
    /// `nil` leaves sockets out of frames.
    package var sockets: SockDiag?
    private var sampler: ProcessCPUSampler
    private let pageSize: Int64

    package init(roots: SysfsRoots = .system, limits: ReadLimits = .standard, sockets: SockDiag? = SockDiag()) {
        self.roots = roots
        self.limits = limits
        self.sockets = sockets
        self.sampler = ProcessCPUSampler(ticksPerSecond: sysconf(Int32(_SC_CLK_TCK)))
        self.pageSize = Int64(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The frame of the unit whose cgroup is `cgroup` (systemd's `ControlGroup`), in the state
    /// `activeState`/`subState` (from systemd). `extraPIDs` (the `MainPID`) stand in for the
    /// cgroup's list where no cgroup tree can be read. `monotonic` is the monotonic clock's reading,
    /// for CPU percents.
    package mutating func frame(
        cgroup: String, activeState: String, subState: String, extraPIDs: [Int32] = [], monotonic: Duration
    ) -> ProcessFrame {
        let layout = CgroupLayout.detect(roots)
        var pids = layout.processDirectory(cgroup).flatMap { CgroupLayout.processes(under: $0, limits: limits) } ?? extraPIDs
        pids = Array(Set(pids)).sorted()

        var stats: [ProcStat] = []
        var omitted = 0
        for pid in pids {
            guard let stat = readStat(pid) else { continue }  // exited since the list was read
            if stats.count < limits.maxFrameProcesses { stats.append(stat) } else { omitted += 1 }
        }
        var ticks: [ProcessCPUSampler.Key: UInt64] = [:]
        for stat in stats { ticks[stat.key] = stat.cpuTicks }
        let percents = sampler.sample(ticks, at: monotonic)

        let processes = stats.map { stat in
            ProcessEntry(
                pid: stat.pid, ppid: stat.ppid, comm: stat.comm, argv0: argv0(stat.pid), state: stat.state,
                threads: stat.threads, rssBytes: stat.rssPages * pageSize, cpuPercent: percents[stat.key])
        }
        let unified = layout.unifiedDirectory(cgroup)
        let tasks = [unified, layout.legacyDirectory("pids", cgroup)].lazy.compactMap { $0 }
            .compactMap { SmallFile.integer(join($0, "pids.current")) }.first.map { Int($0) }
        let memory = unified.flatMap { SmallFile.integer(join($0, "memory.current")) }
            ?? layout.legacyDirectory("memory", cgroup).flatMap { SmallFile.integer(join($0, "memory.usage_in_bytes")) }
        return ProcessFrame(
            activeState: activeState, subState: subState,
            tasks: tasks ?? (omitted == 0 && !stats.isEmpty ? stats.reduce(0) { $0 + $1.threads } : nil),
            memoryBytes: memory, processes: processes, omittedProcesses: omitted,
            sockets: unified.flatMap { listening(under: $0) })
    }

    private func listening(under directory: String) -> [ListeningSocket]? {
        guard let sockets, SmallFile.isDirectory(directory) else { return nil }
        let ids = Set(CgroupLayout.tree(directory, limit: limits.maxChildCgroups).compactMap(SockDiag.cgroupID(ofDirectory:)))
        if case .sockets(let found) = sockets.listening(inCgroups: ids) { return found }
        return nil
    }

    private func readStat(_ pid: Int32) -> ProcStat? {
        guard let text = try? SmallFile.text(roots.proc("\(pid)/stat"), limit: limits.smallFileBytes) else { return nil }
        return ProcStat(text)
    }

    /// Only the first field of `cmdline` is read, through `ProcessName`'s cut; the arguments after
    /// it never enter a frame. `argv[0]` fits in a page; a program that wrote a longer title gets none.
    private func argv0(_ pid: Int32) -> String? {
        guard let bytes = try? SmallFile.bytes(roots.proc("\(pid)/cmdline"), limit: 128 * 1024) else { return nil }
        return ProcessName.argv0BaseName(cmdline: bytes)
    }
}

/// The fields of `/proc/PID/stat` a frame shows.
struct ProcStat: Equatable {
    var pid: Int32
    var comm: String
    var state: String
    var ppid: Int32
    var cpuTicks: UInt64
    var threads: Int
    var startTicks: UInt64
    var rssPages: Int64

    var key: ProcessCPUSampler.Key { ProcessCPUSampler.Key(pid: pid, startTicks: startTicks) }

    /// `comm` sits between the first `(` and the last `)`, since it may itself hold spaces and
    /// parentheses; the numbered fields follow the last `)`.
    init?(_ text: String) {
        guard let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")"), open < close,
            let pid = Int32(text[..<open].trimmingWhitespace())
        else { return nil }
        let rest = text[text.index(after: close)...].split(separator: " ")
        // rest[0] is field 3 (state); field N is rest[N - 3].
        guard rest.count >= 22, let ppid = Int32(rest[1]), let utime = UInt64(rest[11]), let stime = UInt64(rest[12]),
            let threads = Int(rest[17]), let start = UInt64(rest[19]), let rss = Int64(rest[21])
        else { return nil }
        self.pid = pid
        self.comm = String(text[text.index(after: open)..<close])
        self.state = String(rest[0])
        self.ppid = ppid
        self.cpuTicks = utime + stime
        self.threads = threads
        self.startTicks = start
        self.rssPages = max(rss, 0)
    }
}
