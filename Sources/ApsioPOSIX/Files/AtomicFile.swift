#if canImport(Glibc)
internal import Glibc
#endif

/// Writes a small state file so that a crash leaves either the old content or the new, never a
/// torn mix: a temporary file beside it, fsync, rename over, fsync of the directory.
public enum AtomicFile {
    /// Replaces the file at `path` with `bytes`, durably.
    ///
    /// `mode` is set exactly, whatever the umask or a temporary file left by a crash had; `owner`,
    /// when given, is applied to the new file before it takes the old one's place (see `FileOwner`).
    /// Without `durable`, nothing is synced: the new content survives any crash of the process
    /// (the rename is atomic and in the kernel once it returns), not necessarily a power cut, for
    /// a file rewritten too often to sync every time.
    public static func write(
        _ bytes: [UInt8], to path: String, mode: UInt32 = 0o600, owner: FileOwner? = nil, durable: Bool = true
    ) throws(SystemError) {
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let temporary = path + ".tmp"
        let fd = try retryingInterrupts("open(\(temporary))") {
            open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode)
        }
        let file = OwnedFileDescriptor(taking: fd)
        defer { file.close() }
        try retryingInterrupts("fchmod(\(temporary))") { fchmod(fd, mode) }
        if let owner { try owner.apply(to: fd, path: temporary) }
        var written = 0
        while written < bytes.count {
            let count = try retryingInterrupts("write(\(temporary))") {
                bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            }
            written += count
        }
        if durable { try retryingInterrupts("fsync(\(temporary))") { fsync(fd) } }
        file.close()
        try retryingInterrupts("rename(\(temporary), \(path))") { rename(temporary, path) }
        guard durable else { return }
        // The rename is durable only once the directory entry is.
        if let dirFD = try? retryingInterrupts("open(\(directory))", {
            open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }) {
            let dir = OwnedFileDescriptor(taking: dirFD)
            _ = fsync(dir.rawValue)
            dir.close()
        }
    }

    /// The whole file, or nil when it does not exist. Files larger than `maxBytes` are refused:
    /// state files are small, and a huge one is not ours.
    public static func read(_ path: String, maxBytes: Int = 1 << 20) throws(SystemError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw SystemError.last("open(\(path))")
        }
        let file = OwnedFileDescriptor(taking: fd)
        defer { file.close() }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = try retryingInterrupts("read(\(path))") {
                chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            }
            if count == 0 { return result }
            result.append(contentsOf: chunk[0..<count])
            if result.count > maxBytes { throw SystemError("read(\(path))", errno: EFBIG) }
        }
    }
}
