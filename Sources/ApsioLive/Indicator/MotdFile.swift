package import ApsioPOSIX

#if canImport(Glibc)
internal import Glibc
#endif

/// The message-of-the-day fragment that names the watched apps (`/run/motd.d/50-apsio` by default,
/// `[Indicator] MotdFile=`): present while someone watches, gone when nobody does, so a login shows
/// it exactly while it is true.
package struct MotdFile: Sendable {
    package let path: String

    package init(path: String) {
        self.path = path
    }

    /// Writes `lines`, or takes the file away when there are none.
    ///
    /// The package's tmpfiles.d entry makes `/run/motd.d/50-apsio` owned by the daemon's user in a
    /// directory it may not write, so there the file is rewritten in place and emptied rather than
    /// replaced and removed; an empty fragment shows nothing at login. In a directory of its own
    /// (another `MotdFile=`, tests) the file is replaced atomically and removed.
    package func show(_ lines: [String]) throws(SystemError) {
        guard !lines.isEmpty else {
            do {
                try FileSystem.removeFile(path)
            } catch where error.errno == EACCES || error.errno == EPERM {
                try rewriteInPlace([])
            }
            return
        }
        let bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !directory.isEmpty {
            do {
                try FileSystem.makeDirectoryIfMissing(directory, mode: 0o755)
            } catch where error.errno == EACCES {
                // A directory we may not make may still be there for us to write in.
            }
        }
        do {
            // World-readable: pam_motd shows it to whoever logs in, as the indicator intends.
            try AtomicFile.write(bytes, to: path, mode: 0o644)
        } catch let error where error.errno == EACCES || error.errno == EPERM {
            try rewriteInPlace(bytes)
        }
    }

    private func rewriteInPlace(_ bytes: [UInt8]) throws(SystemError) {
        let file = try FileSystem.open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW)
        defer { file.close() }
        try FileSystem.writeAll(file, path: path, bytes)
    }
}
