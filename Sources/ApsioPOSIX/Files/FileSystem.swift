#if canImport(Glibc)
internal import Glibc
#endif

/// The few file calls the stores and the queue make, each opened close-on-exec, retried on EINTR
/// and turned into `SystemError` in one place.
package enum FileSystem {
    /// Files the stores own are opened with `O_NOFOLLOW` by their callers, so a link planted in
    /// their place is refused rather than written through.
    package static func open(_ path: String, _ flags: Int32, mode: UInt32 = 0) throws(SystemError) -> OwnedFileDescriptor {
        let fd = try retryingInterrupts("open(\(path))") { Glibc.open(path, flags | O_CLOEXEC, mode) }
        return OwnedFileDescriptor(taking: fd)
    }

    /// Creates the directory when it is missing; an existing one is left as it is.
    package static func makeDirectory(_ path: String, mode: UInt32) throws(SystemError) {
        if mkdir(path, mode) == 0 {
            // The umask may have taken bits off; the mode is part of who may read the state.
            try retryingInterrupts("chmod(\(path))") { chmod(path, mode) }
            return
        }
        let code = errno
        guard code == EEXIST else { throw SystemError("mkdir(\(path))", errno: code) }
        guard try status(path, followingLinks: false)?.kind == .directory else {
            throw SystemError("mkdir(\(path))", errno: ENOTDIR)
        }
    }

    /// `mkdir`, the umask applying, with whatever is in the place already taken as done: for
    /// directories the program does not own (`/run/motd.d`, the daemon's run directory by hand).
    package static func makeDirectoryIfMissing(_ path: String, mode: UInt32) throws(SystemError) {
        if mkdir(path, mode) == 0 || errno == EEXIST { return }
        throw SystemError.last("mkdir(\(path))")
    }

    /// The names in a directory, `.` and `..` left out, sorted; nil when it does not exist.
    package static func names(in path: String, limit: Int = 1 << 16) throws(SystemError) -> [String]? {
        try entries(in: path, limit: limit) { _ in true }
    }

    /// The names of the entries `keep` accepts, sorted so that "the first" means the same on every
    /// read; at most `limit` of them; nil when the directory does not exist.
    package static func entries(
        in path: String, limit: Int, keep: (DirectoryStream.Entry) -> Bool
    ) throws(SystemError) -> [String]? {
        guard let stream = try DirectoryStream.open(path) else { return nil }
        var names: [String] = []
        while names.count < limit, let entry = try stream.next() {
            if keep(entry) { names.append(entry.name) }
        }
        return names.sorted()
    }

    /// Sets the permission bits of `path` exactly (a socket file, which has no descriptor to fchmod).
    package static func setPermissions(_ path: String, _ mode: UInt32) throws(SystemError) {
        try retryingInterrupts("chmod(\(path))") { chmod(path, mode) }
    }

    /// Removes a file; a missing one is not an error.
    package static func removeFile(_ path: String) throws(SystemError) {
        if unlink(path) == 0 || errno == ENOENT { return }
        throw SystemError.last("unlink(\(path))")
    }

    /// Removes a directory and everything under it, never following a symbolic link out of it.
    package static func removeTree(_ path: String) throws(SystemError) {
        guard let info = try status(path, followingLinks: false) else { return }
        if info.kind == .directory {
            for name in try names(in: path) ?? [] {
                try removeTree(path + "/" + name)
            }
            if rmdir(path) != 0, errno != ENOENT { throw SystemError.last("rmdir(\(path))") }
        } else {
            try removeFile(path)
        }
    }

    /// Puts `source` in the place of `destination` atomically.
    package static func rename(_ source: String, to destination: String) throws(SystemError) {
        try retryingInterrupts("rename(\(source), \(destination))") { Glibc.rename(source, destination) }
    }

    /// Makes renames, creations and removals in a directory durable.
    package static func syncDirectory(_ path: String) throws(SystemError) {
        let directory = try FileSystem.open(path, O_RDONLY | O_DIRECTORY)
        defer { directory.close() }
        try retryingInterrupts("fsync(\(path))") { fsync(directory.rawValue) }
    }

    package static func size(of file: OwnedFileDescriptor, path: String) throws(SystemError) -> Int {
        Int(try status(of: file, path: path).size)
    }

    /// Reads exactly `count` bytes at `offset`, fewer only at end of file.
    package static func read(_ file: OwnedFileDescriptor, path: String, at offset: Int, count: Int) throws(SystemError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = try retryingInterrupts("pread(\(path))") {
                buffer.withUnsafeMutableBytes { pread(file.rawValue, $0.baseAddress! + filled, count - filled, off_t(offset + filled)) }
            }
            if got == 0 { break }
            filled += got
        }
        buffer.removeSubrange(filled...)
        return buffer
    }

    package static func truncate(_ file: OwnedFileDescriptor, path: String, to length: Int) throws(SystemError) {
        try retryingInterrupts("ftruncate(\(path))") { ftruncate(file.rawValue, off_t(length)) }
    }

    package static func sync(_ file: OwnedFileDescriptor, path: String) throws(SystemError) {
        try retryingInterrupts("fdatasync(\(path))") { fdatasync(file.rawValue) }
    }
}
