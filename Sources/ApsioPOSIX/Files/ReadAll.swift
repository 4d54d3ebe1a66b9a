#if canImport(Glibc)
internal import Glibc
#endif

/// The one capped whole-file read of the package. sysfs and procfs files report a size of 0 or
/// 4096 whatever they hold, and a file may grow while it is read, so it is read to end of file
/// with a cap rather than by its size: never more than `maxBytes + 1` bytes, the one more telling
/// a file too large, which throws `EFBIG` (the read's name and the path in the error).
extension FileSystem {
    /// Reads the file at `path` whole; nil when it does not exist. `flags` are added to
    /// `O_RDONLY | O_CLOEXEC` (`O_NOFOLLOW`, `O_NONBLOCK`).
    package static func readAll(_ path: String, maxBytes: Int, flags: Int32 = 0) throws(SystemError) -> [UInt8]? {
        let file: OwnedFileDescriptor
        do {
            file = try FileSystem.open(path, O_RDONLY | flags)
        } catch where error.errno == ENOENT {
            return nil
        }
        defer { file.close() }
        return try readAll(file, path: path, maxBytes: maxBytes)
    }

    /// Reads an open file from where it stands to its end.
    package static func readAll(_ file: OwnedFileDescriptor, path: String, maxBytes: Int) throws(SystemError) -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: min(max(maxBytes, 0) + 1, 64 * 1024))
        while true {
            let want = min(chunk.count, maxBytes + 1 - result.count)
            let count = try retryingInterrupts("read(\(path))") {
                chunk.withUnsafeMutableBytes { Glibc.read(file.rawValue, $0.baseAddress, want) }
            }
            if count == 0 { return result }
            result.append(contentsOf: chunk[0..<count])
            if result.count > maxBytes { throw SystemError("read(\(path))", errno: EFBIG) }
        }
    }

    /// One `read` of at most `maxBytes`: what a sysfs attribute or an event descriptor has now.
    package static func readOnce(_ file: OwnedFileDescriptor, path: String, maxBytes: Int) throws(SystemError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maxBytes)
        let count = try retryingInterrupts("read(\(path))") {
            buffer.withUnsafeMutableBytes { Glibc.read(file.rawValue, $0.baseAddress, $0.count) }
        }
        buffer.removeSubrange(count...)
        return buffer
    }
}
