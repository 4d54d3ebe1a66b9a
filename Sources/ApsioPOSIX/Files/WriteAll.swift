#if canImport(Glibc)
internal import Glibc
#endif

/// The one write loop of the package: a write may take fewer bytes than asked (a signal, a full
/// pipe or terminal), so every write goes on until all are taken or one fails, retried on EINTR.
extension FileSystem {
    package static func writeAll(_ file: OwnedFileDescriptor, path: String, _ bytes: [UInt8]) throws(SystemError) {
        try writeAll(descriptor: file.rawValue, path: path, bytes)
    }

    /// `bytes` at `offset`, whatever the file position; all of them or an error.
    package static func writeAll(
        _ file: OwnedFileDescriptor, path: String, _ bytes: [UInt8], at offset: Int
    ) throws(SystemError) {
        var written = 0
        while written < bytes.count {
            let count = try retryingInterrupts("pwrite(\(path))") {
                bytes.withUnsafeBytes {
                    pwrite(file.rawValue, $0.baseAddress! + written, $0.count - written, off_t(offset + written))
                }
            }
            // No progress on a file that takes no bytes: not worth spinning on.
            guard count > 0 else { throw SystemError("pwrite(\(path))", errno: EIO) }
            written += count
        }
    }

    /// For descriptors nobody here owns (standard error).
    package static func writeAll(descriptor fd: Int32, path: String, _ bytes: [UInt8]) throws(SystemError) {
        var written = 0
        while written < bytes.count {
            let count = try retryingInterrupts("write(\(path))") {
                bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            }
            guard count > 0 else { throw SystemError("write(\(path))", errno: EIO) }
            written += count
        }
    }
}
