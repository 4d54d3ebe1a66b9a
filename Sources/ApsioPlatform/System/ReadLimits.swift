/// Caps on what the readers take in. The files are the kernel's, but what they list (processes,
/// sockets, files in a state directory, paths in dpkg's lists) is made by the services watched, and
/// a service gone wrong must not make the daemon slow or large.
public struct ReadLimits: Sendable, Equatable {
    /// A sysfs or procfs attribute: a page is the kernel's own limit for most.
    public var smallFileBytes = 64 * 1024
    /// `/proc/net/route`, `/proc/net/ipv6_route`, `memory.stat`, `cgroup.procs`.
    public var tableFileBytes = 4 * 1024 * 1024
    /// `/var/lib/dpkg/status` and one `*.list`.
    public var dpkgFileBytes = 64 * 1024 * 1024
    /// Processes listed in one frame; the rest are counted as omitted.
    public var maxFrameProcesses = 1024
    /// Cgroups walked below a unit's cgroup.
    public var maxChildCgroups = 4096
    /// Sockets a frame lists.
    public var maxFrameSockets = 256
    /// Sockets looked at in one sock_diag dump, all cgroups together.
    public var maxDumpedSockets = 1_000_000
    /// How long a sock_diag dump may wait for the kernel's next message.
    public var sockDiagTimeout: Duration = .seconds(2)
    /// Entries walked under one state or cache directory; past it the size is unknown, not guessed.
    public var maxStorageEntries = 1_000_000
    /// Directory depth under one state or cache directory.
    public var maxStorageDepth = 128
    /// Bytes read from an ELF file's notes.
    public var maxELFNoteBytes = 1024 * 1024
    /// Thermal zones and power supplies looked at.
    public var maxSysfsDevices = 256

    public init() {}

    public static let standard = ReadLimits()
}
