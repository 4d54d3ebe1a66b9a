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
        var info = stat()
        try retryingInterrupts("stat(\(path))") { lstat(path, &info) }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw SystemError("mkdir(\(path))", errno: ENOTDIR) }
    }

    /// The names in a directory, `.` and `..` left out, sorted; nil when it does not exist.
    package static func names(in path: String, limit: Int = 1 << 16) throws(SystemError) -> [String]? {
        let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw SystemError.last("open(\(path))")
        }
        // The DIR stream owns the descriptor from here and closes it with closedir.
        guard let stream = fdopendir(fd) else {
            let error = SystemError.last("fdopendir(\(path))")
            Glibc.close(fd)
            throw error
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            names.append(name)
            if names.count >= limit { break }
        }
        return names.sorted()
    }

    /// Removes a file; a missing one is not an error.
    package static func removeFile(_ path: String) throws(SystemError) {
        if unlink(path) == 0 || errno == ENOENT { return }
        throw SystemError.last("unlink(\(path))")
    }

    /// Removes a directory and everything under it, never following a symbolic link out of it.
    package static func removeTree(_ path: String) throws(SystemError) {
        var info = stat()
        if lstat(path, &info) != 0 {
            if errno == ENOENT { return }
            throw SystemError.last("lstat(\(path))")
        }
        if info.st_mode & S_IFMT == S_IFDIR {
            for name in try names(in: path) ?? [] {
                try removeTree(path + "/" + name)
            }
            if rmdir(path) != 0, errno != ENOENT { throw SystemError.last("rmdir(\(path))") }
        } else {
            try removeFile(path)
        }
    }

    /// Makes renames, creations and removals in a directory durable.
    package static func syncDirectory(_ path: String) throws(SystemError) {
        let directory = try open(path, O_RDONLY | O_DIRECTORY)
        defer { directory.close() }
        try retryingInterrupts("fsync(\(path))") { fsync(directory.rawValue) }
    }

    package static func size(of file: OwnedFileDescriptor, path: String) throws(SystemError) -> Int {
        var info = stat()
        try retryingInterrupts("fstat(\(path))") { fstat(file.rawValue, &info) }
        return Int(info.st_size)
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

    package static func writeAll(_ file: OwnedFileDescriptor, path: String, _ bytes: [UInt8]) throws(SystemError) {
        var written = 0
        while written < bytes.count {
            let count = try retryingInterrupts("write(\(path))") {
                bytes.withUnsafeBytes { Glibc.write(file.rawValue, $0.baseAddress! + written, $0.count - written) }
            }
            written += count
        }
    }

    package static func truncate(_ file: OwnedFileDescriptor, path: String, to length: Int) throws(SystemError) {
        try retryingInterrupts("ftruncate(\(path))") { ftruncate(file.rawValue, off_t(length)) }
    }

    package static func sync(_ file: OwnedFileDescriptor, path: String) throws(SystemError) {
        try retryingInterrupts("fdatasync(\(path))") { fdatasync(file.rawValue) }
    }
}
