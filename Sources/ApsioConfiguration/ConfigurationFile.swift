#if canImport(Glibc)
internal import Glibc
#endif
internal import ApsioPOSIX

/// Reads a configuration or key file: a regular file only (a FIFO or a device in its place would
/// block or never end), at most `limit` bytes, and its mode, checked on the opened file itself.
enum ConfigurationFile {
    struct Contents {
        var bytes: [UInt8]
        var mode: UInt32
    }

    enum ReadError: Error, Equatable {
        case system(SystemError)
        case notRegularFile
        case tooLarge(limit: Int)
    }

    /// The file, or nil when it does not exist.
    static func read(_ path: String, limit: Int) throws(ReadError) -> Contents? {
        // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw .system(.last("open(\(path))"))
        }
        let file = OwnedFileDescriptor(taking: fd)
        defer { file.close() }
        var info = stat()
        do {
            try retryingInterrupts("fstat(\(path))") { fstat(fd, &info) }
        } catch {
            throw .system(error)
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notRegularFile }
        guard Int(info.st_size) <= limit else { throw .tooLarge(limit: limit) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: min(limit + 1, 64 * 1024))
        while true {
            let count: Int
            do {
                count = try retryingInterrupts("read(\(path))") {
                    chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                }
            } catch {
                throw .system(error)
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            // The size was checked, but the file may grow while it is read.
            if bytes.count > limit { throw .tooLarge(limit: limit) }
        }
        return Contents(bytes: bytes, mode: UInt32(info.st_mode))
    }

    /// The reason alone, `strerror`'s words, for messages that already name the file.
    static func reason(_ error: SystemError) -> String {
        String(cString: strerror(error.errno))
    }
}
