internal import ApsioPOSIX

/// The path of a unit's main executable, from its main process: `/proc/PID/exe` where the daemon
/// may read it (root, or the same user), else `argv[0]` of `/proc/PID/cmdline` when that is an
/// absolute path to a regular file — the command line is world-readable, the link is not.
package enum MainExecutable {
    package static func path(pid: Int32, roots: SysfsRoots = .system) -> String? {
        if let target = FileSystem.linkTarget(roots.proc("\(pid)/exe")) {
            // A replaced binary reads "/usr/sbin/nginx (deleted)": the file on disk is not the one running.
            if target.hasPrefix("/"), !target.hasSuffix(" (deleted)") { return target }
        }
        guard let cmdline = try? SmallFile.bytes(roots.proc("\(pid)/cmdline"), limit: 64 * 1024) else { return nil }
        let first = String(decoding: cmdline.prefix { $0 != 0 }, as: UTF8.self)
        guard first.hasPrefix("/") else { return nil }
        guard (try? FileSystem.status(first))??.kind == .regular else { return nil }
        return first
    }
}
