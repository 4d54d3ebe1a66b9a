package import ApsioCore
/// `apsio.memory.footprint` (7.6) of a unit, from its cgroup where the kernel keeps the count, else
/// from its processes' `/proc/PID/status`. Never `smaps`: it costs a page-table walk per process and
/// needs ptrace rights over processes of other users.
package struct MemoryFootprintReader: Sendable {
    package var roots: SysfsRoots
    package var limits: ReadLimits

    package init(roots: SysfsRoots = .system, limits: ReadLimits = .standard) {
        self.roots = roots
        self.limits = limits
    }

    /// The footprint of the unit whose cgroup is `cgroup` (systemd's `ControlGroup`); `extraPIDs`
    /// (the unit's `MainPID`) are used when no cgroup lists the processes. `nil` when nothing at all
    /// could be read.
    package func read(cgroup: String, extraPIDs: [Int32] = []) -> MemoryFootprint? {
        let layout = CgroupLayout.detect(roots)
        if let directory = layout.unifiedDirectory(cgroup), let bytes = unified(directory) {
            return MemoryFootprint(bytes: bytes, source: .cgroupV2)
        }
        if let directory = layout.legacyDirectory("memory", cgroup), let bytes = legacy(directory) {
            return MemoryFootprint(bytes: bytes, source: .cgroupV1)
        }
        var pids = layout.processDirectory(cgroup).flatMap { CgroupLayout.processes(under: $0, limits: limits) } ?? []
        pids += extraPIDs.filter { !pids.contains($0) }
        return processes(pids).map { MemoryFootprint(bytes: $0, source: .procStatus) }
    }

    /// cgroup v2 `memory.stat` is recursive: the unit's child cgroups are counted in it. Without swap
    /// accounting (`memory.swap.current` missing) the unit has no swap to count.
    private func unified(_ directory: String) -> Int64? {
        guard let stat = try? SmallFile.text(join(directory, "memory.stat"), limit: limits.tableFileBytes) else {
            return nil
        }
        let fields = Self.keyValues(stat)
        guard let anon = fields["anon"], let shmem = fields["shmem"] else { return nil }
        let swap = SmallFile.integer(join(directory, "memory.swap.current")) ?? 0
        return anon + shmem + swap
    }

    /// cgroup v1's memory controller, on hybrid and legacy machines. `rss` there is the v2 `anon`
    /// (anonymous pages, transparent huge pages included, which is why `rss_huge` is not added),
    /// `shmem` is the same count, and `swap` is the swap used. The `total_` forms are taken because
    /// they include the child cgroups, as v2's `memory.stat` does; the plain ones count the
    /// cgroup's own pages only. `total_swap` is missing when swap accounting is off (`swapaccount=0`).
    private func legacy(_ directory: String) -> Int64? {
        guard let stat = try? SmallFile.text(join(directory, "memory.stat"), limit: limits.tableFileBytes) else {
            return nil
        }
        let fields = Self.keyValues(stat)
        guard let rss = fields["total_rss"], let shmem = fields["total_shmem"] else { return nil }
        return rss + shmem + (fields["total_swap"] ?? 0)
    }

    /// The sum of `RssAnon` + `RssShmem` + `VmSwap` over `pids`; processes that exited meanwhile
    /// are skipped. `nil` when none could be read.
    private func processes(_ pids: [Int32]) -> Int64? {
        var total: Int64 = 0
        var readAny = false
        for pid in pids {
            guard let status = try? SmallFile.text(roots.proc("\(pid)/status"), limit: limits.smallFileBytes) else {
                continue
            }
            let fields = ProcStatus(status)
            guard let anon = fields.kibibytes("RssAnon") else { continue }
            readAny = true
            total += (anon + (fields.kibibytes("RssShmem") ?? 0) + (fields.kibibytes("VmSwap") ?? 0)) * 1024
        }
        return readAny ? total : nil
    }

    /// `key value` lines, as `memory.stat` writes them.
    static func keyValues(_ text: String) -> [String: Int64] {
        var out: [String: Int64] = [:]
        for line in text.split(whereSeparator: \.isNewline) {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2, let value = Int64(parts[1].trimmingWhitespace()) { out[String(parts[0])] = value }
        }
        return out
    }
}

/// `/proc/PID/status`: `Key:\tvalue` lines.
struct ProcStatus {
    private var fields: [Substring: Substring] = [:]

    init(_ text: String) {
        for line in text.split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon]] = line[line.index(after: colon)...]
        }
    }

    func value(_ key: String) -> String? {
        fields[Substring(key)].map { $0.trimmingWhitespace() }
    }

    /// A `kB` field (`VmRSS:	  1234 kB`) as its number of KiB.
    func kibibytes(_ key: String) -> Int64? {
        value(key).flatMap { $0.split(separator: " ").first }.flatMap { Int64($0) }
    }
}
