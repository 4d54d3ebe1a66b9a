/// Caps on what the readers take in. The files are the kernel's, but what they list (processes,
/// sockets, files in a state directory, paths in dpkg's lists) is made by the services watched, and
/// a service gone wrong must not make the daemon slow or large.
package struct ReadLimits: Sendable, Equatable {
    /// A sysfs or procfs attribute: a page is the kernel's own limit for most.
    package var smallFileBytes = 64 * 1024
    /// `/proc/net/route`, `/proc/net/ipv6_route`, `memory.stat`, `cgroup.procs`.
    package var tableFileBytes = 4 * 1024 * 1024
    /// `/var/lib/dpkg/status` and one `*.list`.
    package var dpkgFileBytes = 64 * 1024 * 1024
    /// Processes listed in one frame; the rest are counted as omitted.
    package var maxFrameProcesses = 1024
    /// Cgroups walked below a unit's cgroup.
    package var maxChildCgroups = 4096
    /// Sockets a frame lists.
    package var maxFrameSockets = 256
    /// Sockets looked at in one sock_diag dump, all cgroups together.
    package var maxDumpedSockets = 1_000_000
    /// How long a sock_diag dump may wait for the kernel's next message.
    package var sockDiagTimeout: Duration = .seconds(2)
    /// Entries walked under one state or cache directory; past it the size is unknown, not guessed.
    package var maxStorageEntries = 1_000_000
    /// Directory depth under one state or cache directory.
    package var maxStorageDepth = 128
    /// Bytes read from an ELF file's notes.
    package var maxELFNoteBytes = 1024 * 1024
    /// Thermal zones and power supplies looked at.
    package var maxSysfsDevices = 256

    package init() {}

    package static let standard = ReadLimits()
}
