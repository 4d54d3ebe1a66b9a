#if canImport(Glibc)
internal import Glibc
#endif

/// Writes a small state file so that a crash leaves either the old content or the new, never a
/// torn mix: a temporary file beside it, fsync, rename over, fsync of the directory.
package enum AtomicFile {
    /// Replaces the file at `path` with `bytes`, durably.
    ///
    /// `mode` is set exactly, whatever the umask or a temporary file left by a crash had; `owner`,
    /// when given, is applied to the new file before it takes the old one's place (see `FileOwner`).
    /// Without `durable`, nothing is synced: the new content survives any crash of the process
    /// (the rename is atomic and in the kernel once it returns), not necessarily a power cut, for
    /// a file rewritten too often to sync every time.
    package static func write(
        _ bytes: [UInt8], to path: String, mode: UInt32 = 0o600, owner: FileOwner? = nil, durable: Bool = true
    ) throws(SystemError) {
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let temporary = path + ".tmp"
        let file = try FileSystem.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, mode: mode)
        defer { file.close() }
        try retryingInterrupts("fchmod(\(temporary))") { fchmod(file.rawValue, mode) }
        if let owner { try owner.apply(to: file.rawValue, path: temporary) }
        try FileSystem.writeAll(file, path: temporary, bytes)
        if durable { try retryingInterrupts("fsync(\(temporary))") { fsync(file.rawValue) } }
        file.close()
        try FileSystem.rename(temporary, to: path)
        guard durable else { return }
        // The rename is durable only once the directory entry is; a directory that cannot be
        // synced leaves the new content in place, durable at the next sync of the file system.
        try? FileSystem.syncDirectory(directory.isEmpty ? "." : directory)
    }

    /// The whole file, or nil when it does not exist. Files larger than `maxBytes` are refused:
    /// state files are small, and a huge one is not ours.
    package static func read(_ path: String, maxBytes: Int = 1 << 20) throws(SystemError) -> [UInt8]? {
        try FileSystem.readAll(path, maxBytes: maxBytes)
    }
}
