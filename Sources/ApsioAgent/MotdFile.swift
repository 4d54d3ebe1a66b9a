public import ApsioPOSIX

#if canImport(Glibc)
internal import Glibc
#endif

/// The message-of-the-day fragment that names the watched apps (`/run/motd.d/50-apsio` by default,
/// `[Indicator] MotdFile=`): present while someone watches, gone when nobody does, so a login shows
/// it exactly while it is true.
public struct MotdFile: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// Writes `lines`, or removes the file when there are none.
    public func show(_ lines: [String]) throws(SystemError) {
        guard !lines.isEmpty else {
            if unlink(path) != 0, errno != ENOENT { throw SystemError.last("unlink(\(path))") }
            return
        }
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !directory.isEmpty, mkdir(directory, 0o755) != 0, errno != EEXIST {
            throw SystemError.last("mkdir(\(directory))")
        }
        // World-readable: pam_motd shows it to whoever logs in, as the indicator intends.
        try AtomicFile.write(Array((lines.joined(separator: "\n") + "\n").utf8), to: path, mode: 0o644)
    }
}
