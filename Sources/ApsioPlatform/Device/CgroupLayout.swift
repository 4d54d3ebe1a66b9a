/// Where a unit's cgroup lives under sysfs. Three layouts are in the field: unified (cgroup v2 only,
/// Debian 11 on), hybrid (v1 controllers with a v2 tree at `fs/cgroup/unified`, where the memory
/// controller is v1) and legacy (v1 only, a `name=systemd` tree for the processes).
package struct CgroupLayout: Sendable, Equatable {
    /// The v2 tree's mount point, when there is one.
    package var unified: String?
    /// The v1 mount points by controller or hierarchy name (`memory`, `pids`, `systemd`).
    package var legacy: [String: String]

    package init(unified: String?, legacy: [String: String]) {
        self.unified = unified
        self.legacy = legacy
    }

    /// The layout as mounted under `roots`' sysfs.
    package static func detect(_ roots: SysfsRoots) -> CgroupLayout {
        let base = roots.sys("fs/cgroup")
        if SmallFile.exists(join(base, "cgroup.controllers")) {
            return CgroupLayout(unified: base, legacy: [:])
        }
        let hybrid = join(base, "unified")
        let unified = SmallFile.exists(join(hybrid, "cgroup.controllers")) ? hybrid : nil
        var legacy: [String: String] = [:]
        for name in ["memory", "pids", "systemd"] where SmallFile.isDirectory(join(base, name)) {
            legacy[name] = join(base, name)
        }
        return CgroupLayout(unified: unified, legacy: legacy)
    }

    /// A unit's cgroup directory in the v2 tree (`/system.slice/nginx.service`, as systemd's
    /// `ControlGroup` property gives it); `nil` without a v2 tree or for a path that climbs out.
    package func unifiedDirectory(_ cgroup: String) -> String? {
        guard let unified, Self.isContained(cgroup) else { return nil }
        return join(unified, cgroup)
    }

    /// The unit's directory in a v1 hierarchy, when that hierarchy is mounted.
    package func legacyDirectory(_ hierarchy: String, _ cgroup: String) -> String? {
        guard let root = legacy[hierarchy], Self.isContained(cgroup) else { return nil }
        return join(root, cgroup)
    }

    /// Where the unit's processes are listed: the v2 tree, else v1's `name=systemd`, which systemd
    /// keeps complete on every layout.
    package func processDirectory(_ cgroup: String) -> String? {
        for candidate in [unifiedDirectory(cgroup), legacyDirectory("systemd", cgroup)] {
            if let candidate, SmallFile.exists(join(candidate, "cgroup.procs")) { return candidate }
        }
        return nil
    }

    static func isContained(_ cgroup: String) -> Bool {
        !cgroup.split(separator: "/").contains("..")
    }

    /// `directory` and the cgroups below it, parents first, at most `limit` in all.
    static func tree(_ directory: String, limit: Int) -> [String] {
        var out: [String] = [directory]
        var next = 0
        while next < out.count && out.count < limit {
            let parent = out[next]
            next += 1
            let children = (try? SmallFile.subdirectories(of: parent, limit: limit)) ?? []
            for child in children where out.count < limit { out.append(join(parent, child)) }
        }
        return out
    }

    /// The pids in `cgroup.procs` of `directory` and every cgroup below it.
    static func processes(under directory: String, limits: ReadLimits) -> [Int32]? {
        var pids: [Int32] = []
        var readAny = false
        for cgroup in tree(directory, limit: limits.maxChildCgroups) {
            guard let text = try? SmallFile.text(join(cgroup, "cgroup.procs"), limit: limits.tableFileBytes) else {
                continue
            }
            readAny = true
            pids += text.split(whereSeparator: \.isNewline).compactMap { Int32($0) }
        }
        return readAny ? pids : nil
    }
}
