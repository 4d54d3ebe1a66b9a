#if canImport(Glibc)
internal import Glibc
#endif

/// The path of a unit's main executable, from its main process: `/proc/PID/exe` where the daemon
/// may read it (root, or the same user), else `argv[0]` of `/proc/PID/cmdline` when that is an
/// absolute path to a regular file — the command line is world-readable, the link is not.
public enum MainExecutable {
    public static func path(pid: Int32, roots: SysfsRoots = .system) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink(roots.proc("\(pid)/exe"), &buffer, buffer.count - 1)
        if length > 0 {
            let target = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            // A replaced binary reads "/usr/sbin/nginx (deleted)": the file on disk is not the one running.
            if target.hasPrefix("/"), !target.hasSuffix(" (deleted)") { return target }
        }
        guard let cmdline = try? SmallFile.bytes(roots.proc("\(pid)/cmdline"), limit: 64 * 1024) else { return nil }
        let first = String(decoding: cmdline.prefix { $0 != 0 }, as: UTF8.self)
        guard first.hasPrefix("/") else { return nil }
        var info = stat()
        guard stat(first, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return first
    }
}
