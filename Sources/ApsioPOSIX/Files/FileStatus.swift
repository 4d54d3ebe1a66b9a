#if canImport(Glibc)
internal import Glibc
#endif

/// What `stat(2)` says of a file, in the few fields the daemon decides on, so that no caller needs
/// `struct stat` and its type bits.
package struct FileStatus: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        case regular, directory, symbolicLink, socket, other
    }

    package var kind: Kind
    /// The whole `st_mode`, type bits included.
    package var mode: UInt32
    package var uid: UInt32
    package var gid: UInt32
    package var size: Int64
    /// 512-byte blocks allocated, as `du` counts them.
    package var blocks: Int64
    package var linkCount: UInt64
    package var device: UInt64
    package var inode: UInt64
    package var modifiedUnixSeconds: Int64

    /// The permission bits (and set-id and sticky), without the type.
    package var permissions: UInt32 { mode & 0o7777 }

    init(_ info: stat) {
        kind =
            switch info.st_mode & S_IFMT {
            case S_IFREG: .regular
            case S_IFDIR: .directory
            case S_IFLNK: .symbolicLink
            case S_IFSOCK: .socket
            default: .other
            }
        mode = UInt32(info.st_mode)
        uid = info.st_uid
        gid = info.st_gid
        size = Int64(info.st_size)
        blocks = Int64(info.st_blocks)
        linkCount = UInt64(info.st_nlink)
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        modifiedUnixSeconds = Int64(info.st_mtim.tv_sec)
    }
}

extension FileSystem {
    /// The status of `path`, or nil when it does not exist; `followingLinks: false` is `lstat`.
    package static func status(_ path: String, followingLinks: Bool = true) throws(SystemError) -> FileStatus? {
        var info = stat()
        let call = followingLinks ? "stat" : "lstat"
        while (followingLinks ? stat(path, &info) : lstat(path, &info)) != 0 {
            let code = errno
            if code == EINTR { continue }
            if code == ENOENT { return nil }
            throw SystemError("\(call)(\(path))", errno: code)
        }
        return FileStatus(info)
    }

    /// The status of an open file, which cannot have been swapped since it was opened.
    package static func status(of file: OwnedFileDescriptor, path: String) throws(SystemError) -> FileStatus {
        var info = stat()
        try retryingInterrupts("fstat(\(path))") { fstat(file.rawValue, &info) }
        return FileStatus(info)
    }

    /// The status of a descriptor the process inherited and does not own (2 for standard error).
    package static func status(ofInherited fd: Int32) -> FileStatus? {
        var info = stat()
        return fstat(fd, &info) == 0 ? FileStatus(info) : nil
    }

    /// Where the symbolic link at `path` points; nil when it is not one or cannot be read.
    package static func linkTarget(_ path: String) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let length = buffer.withUnsafeMutableBytes { readlink(path, $0.baseAddress!, $0.count - 1) }
        guard length > 0 else { return nil }
        return String(decoding: buffer[0..<length], as: UTF8.self)
    }

    /// Whether anything is at `path` (a dangling link counts as nothing).
    package static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    package static func isDirectory(_ path: String) -> Bool {
        (try? status(path))??.kind == .directory
    }
}
