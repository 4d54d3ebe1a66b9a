/// `apsio.memory.footprint` (7.6): the unit's memory that only it holds and the system cannot
/// reclaim without swapping: anonymous memory, shared memory (tmpfs, SysV, memfd) and its swap.
/// Page cache is left out, since the kernel drops it under pressure.
package struct MemoryFootprint: Sendable, Equatable {
    /// Where the number came from, so an operator can tell why two machines disagree.
    package enum Source: String, Sendable, Equatable, Codable {
        /// cgroup v2 `memory.stat` `anon` + `shmem`, plus `memory.swap.current`.
        case cgroupV2 = "cgroup_v2"
        /// cgroup v1 memory controller `memory.stat` `total_rss` + `total_shmem` + `total_swap`.
        case cgroupV1 = "cgroup_v1"
        /// The sum over the unit's processes of `RssAnon` + `RssShmem` + `VmSwap`.
        case procStatus = "proc_status"
    }

    package var bytes: Int64
    package var source: Source

    package init(bytes: Int64, source: Source) {
        self.bytes = bytes
        self.source = source
    }
}
