/// Where sysfs and procfs are mounted (`--sysfs`, `--procfs`): `/sys` and `/proc` on a machine, the
/// host's mounts in a container, a fixture tree in a test. Every reader joins its paths onto these.
package struct SysfsRoots: Sendable, Equatable {
    package var sysfs: String
    package var procfs: String

    package init(sysfs: String = "/sys", procfs: String = "/proc") {
        self.sysfs = Self.trimmed(sysfs)
        self.procfs = Self.trimmed(procfs)
    }

    package static let system = SysfsRoots()

    /// `relative` under the sysfs root: `sys("class/thermal")` is `/sys/class/thermal`.
    func sys(_ relative: String) -> String { join(sysfs, relative) }
    func proc(_ relative: String) -> String { join(procfs, relative) }

    private static func trimmed(_ root: String) -> String {
        var root = root
        while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
        return root
    }
}

/// `base` and `relative` with exactly one `/` between them.
func join(_ base: String, _ relative: String) -> String {
    let tail = relative.drop { $0 == "/" }
    if tail.isEmpty { return base }
    return base.hasSuffix("/") ? base + tail : base + "/" + tail
}
