// A scratch directory for the entry points that read files (the queue, the cursor): each input is
// written as files in a fresh directory, which is removed after the run. On /dev/shm when there is
// one, so that the fsyncs of the code under test cost nothing.
#if canImport(Glibc)
import Glibc
#endif

final class ScratchDirectory {
    let path: String

    init() {
        let base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
        var template = Array("\(base)/apsio-fuzz-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { fatalError("mkdtemp: \(String(cString: strerror(errno)))") }
        path = String(cString: made)
    }

    deinit { remove(path) }

    func write(_ name: String, _ bytes: [UInt8]) {
        let fd = open(path + "/" + name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        check(fd >= 0, "open \(name): \(String(cString: strerror(errno)))")
        defer { close(fd) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            check(count > 0, "write \(name): \(String(cString: strerror(errno)))")
            written += count
        }
    }

    /// The file's bytes, or nil when it does not exist.
    func read(_ name: String) -> [UInt8]? {
        let fd = open(path + "/" + name, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            check(count >= 0, "read \(name): \(String(cString: strerror(errno)))")
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
        }
    }

    /// The directory and everything in it (the code under test makes files only, no subdirectories).
    private func remove(_ directory: String) {
        guard let stream = opendir(directory) else { return }
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(cString: bytes.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { unlink(directory + "/" + name) }
        }
        closedir(stream)
        rmdir(directory)
    }
}
