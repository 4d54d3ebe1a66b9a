internal import Glibc

/// Whole-file reads of small kernel and dpkg files. sysfs and procfs files report a size of 0 or
/// 4096 whatever they hold, so a file is read until end of file, with a cap instead of a size.
enum SmallFile {
    static func bytes(_ path: String, limit: Int) throws(PlatformFileError) -> [UInt8] {
        let fd = try open(path, flags: O_RDONLY)
        defer { _ = Glibc.close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: min(max(limit + 1, 1), 64 * 1024))
        while true {
            let want = min(chunk.count, limit + 1 - out.count)
            if want <= 0 { throw PlatformFileError(path: path, reason: .tooLarge(limit: limit)) }
            let got = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, want) }
            if got < 0 {
                if Glibc.errno == EINTR { continue }
                throw PlatformFileError(path: path, reason: .system(errno: Glibc.errno))
            }
            if got == 0 { return out }
            out.append(contentsOf: chunk[0..<got])
            if out.count > limit { throw PlatformFileError(path: path, reason: .tooLarge(limit: limit)) }
        }
    }

    static func text(_ path: String, limit: Int) throws(PlatformFileError) -> String {
        String(decoding: try bytes(path, limit: limit), as: UTF8.self)
    }

    /// A one-value sysfs attribute without its trailing newline, or `nil` when it cannot be read.
    static func attribute(_ path: String, limit: Int = ReadLimits.standard.smallFileBytes) -> String? {
        guard let text = try? text(path, limit: limit) else { return nil }
        return text.trimmingWhitespace()
    }

    static func integer(_ path: String) -> Int64? {
        attribute(path).flatMap { Int64($0) }
    }

    static func open(_ path: String, flags: Int32) throws(PlatformFileError) -> Int32 {
        while true {
            let fd = Glibc.open(path, flags | O_CLOEXEC)
            if fd >= 0 { return fd }
            if Glibc.errno != EINTR { throw PlatformFileError(path: path, reason: .system(errno: Glibc.errno)) }
        }
    }

    /// The names in a directory, `.` and `..` left out, sorted so that "the first" means the same
    /// on every read. At most `limit` names.
    static func names(in path: String, limit: Int) throws(PlatformFileError) -> [String] {
        try entries(in: path, limit: limit) { _, _ in true }
    }

    /// The subdirectories of a directory (cgroups below a cgroup), sorted, at most `limit`.
    static func subdirectories(of path: String, limit: Int) throws(PlatformFileError) -> [String] {
        try entries(in: path, limit: limit) { name, type in
            type == UInt8(DT_DIR) || (type == UInt8(DT_UNKNOWN) && isDirectory(join(path, name)))
        }
    }

    /// The entries of a directory that `keep` accepts (by name and `d_type`), sorted, at most `limit`.
    private static func entries(
        in path: String, limit: Int, keep: (String, UInt8) -> Bool
    ) throws(PlatformFileError) -> [String] {
        let fd = try open(path, flags: O_RDONLY | O_DIRECTORY)
        guard let directory = fdopendir(fd) else {
            let number = Glibc.errno
            _ = Glibc.close(fd)
            throw PlatformFileError(path: path, reason: .system(errno: number))
        }
        defer { closedir(directory) }
        var names: [String] = []
        while names.count < limit, let entry = readdir(directory) {
            let name = entryName(entry)
            if name != "." && name != "..", keep(name, entry.pointee.d_type) { names.append(name) }
        }
        return names.sorted()
    }

    static func entryName(_ entry: UnsafeMutablePointer<dirent>) -> String {
        withUnsafePointer(to: &entry.pointee.d_name) {
            $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
        }
    }

    static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace && $0 != "\0" }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace && $0 != "\0" })!
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}
