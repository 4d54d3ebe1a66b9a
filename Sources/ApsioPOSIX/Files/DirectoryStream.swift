#if canImport(Glibc)
internal import Glibc
#endif

/// An open directory read entry by entry (readdir(3)), its descriptor close-on-exec and closed
/// with the stream. Entries below it are looked at and opened relative to it (`fstatat`,
/// `openat`), so a walk never follows a path that was swapped for a link while it ran.
package final class DirectoryStream {
    package struct Entry: Sendable, Equatable {
        package var name: String
        /// From `d_type`; nil when the file system does not say (then ask `status(of:)`).
        package var kind: FileStatus.Kind?
    }

    package let path: String
    private let stream: OpaquePointer

    private init(path: String, stream: OpaquePointer) {
        self.path = path
        self.stream = stream
    }

    /// Opens the directory at `path`; nil when it does not exist.
    package static func open(_ path: String) throws(SystemError) -> DirectoryStream? {
        let fd: Int32
        do {
            fd = try retryingInterrupts("open(\(path))") { Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        } catch where error.errno == ENOENT {
            return nil
        }
        return try adopting(fd, path: path)
    }

    /// Opens the subdirectory `name`, never through a symbolic link; nil when it is gone.
    package func opening(_ name: String) throws(SystemError) -> DirectoryStream? {
        let child = path + "/" + name
        let fd: Int32
        do {
            fd = try retryingInterrupts("openat(\(child))") {
                openat(dirfd(stream), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
        } catch where error.errno == ENOENT {
            return nil
        }
        return try Self.adopting(fd, path: child)
    }

    /// The stream owns `fd` from here and closes it with `closedir`.
    private static func adopting(_ fd: Int32, path: String) throws(SystemError) -> DirectoryStream {
        guard let stream = fdopendir(fd) else {
            let error = SystemError.last("fdopendir(\(path))")
            _ = Glibc.close(fd)
            throw error
        }
        return DirectoryStream(path: path, stream: stream)
    }

    /// The directory's own status.
    package func status() throws(SystemError) -> FileStatus {
        var info = stat()
        try retryingInterrupts("fstat(\(path))") { fstat(dirfd(stream), &info) }
        return FileStatus(info)
    }

    /// The status of the entry `name`, not following a link; nil when it was removed meanwhile.
    package func status(of name: String) throws(SystemError) -> FileStatus? {
        var info = stat()
        while fstatat(dirfd(stream), name, &info, AT_SYMLINK_NOFOLLOW) != 0 {
            let code = errno
            if code == EINTR { continue }
            if code == ENOENT { return nil }
            throw SystemError("fstatat(\(path)/\(name))", errno: code)
        }
        return FileStatus(info)
    }

    /// The next entry, `.` and `..` left out; nil at the end.
    package func next() throws(SystemError) -> Entry? {
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw SystemError.last("readdir(\(path))") }
                return nil
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            let kind: FileStatus.Kind? =
                switch Int32(entry.pointee.d_type) {
                case Int32(DT_REG): .regular
                case Int32(DT_DIR): .directory
                case Int32(DT_LNK): .symbolicLink
                case Int32(DT_SOCK): .socket
                case Int32(DT_UNKNOWN): nil
                default: .other
                }
            return Entry(name: name, kind: kind)
        }
    }

    deinit { closedir(stream) }
}
