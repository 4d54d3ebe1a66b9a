internal import ApsioPOSIX
internal import Glibc

/// Whole-file reads of small kernel and dpkg files, through `FileSystem`'s capped read (sysfs and
/// procfs files report a size of 0 or 4096 whatever they hold), with the readers' own error.
enum SmallFile {
    static func bytes(_ path: String, limit: Int) throws(PlatformFileError) -> [UInt8] {
        do throws(SystemError) {
            guard let bytes = try FileSystem.readAll(path, maxBytes: limit) else {
                throw SystemError("open(\(path))", errno: ENOENT)
            }
            return bytes
        } catch {
            throw PlatformFileError(path: path, error, limit: limit)
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

    static func open(_ path: String, flags: Int32) throws(PlatformFileError) -> OwnedFileDescriptor {
        do {
            return try FileSystem.open(path, flags)
        } catch {
            throw PlatformFileError(path: path, error)
        }
    }

    /// The names in a directory, `.` and `..` left out, sorted so that "the first" means the same
    /// on every read. At most `limit` names.
    static func names(in path: String, limit: Int) throws(PlatformFileError) -> [String] {
        try entries(in: path, limit: limit) { _ in true }
    }

    /// The subdirectories of a directory (cgroups below a cgroup), sorted, at most `limit`.
    static func subdirectories(of path: String, limit: Int) throws(PlatformFileError) -> [String] {
        try entries(in: path, limit: limit) { entry in
            entry.kind == .directory || (entry.kind == nil && isDirectory(join(path, entry.name)))
        }
    }

    private static func entries(
        in path: String, limit: Int, keep: (DirectoryStream.Entry) -> Bool
    ) throws(PlatformFileError) -> [String] {
        do throws(SystemError) {
            guard let names = try FileSystem.entries(in: path, limit: limit, keep: keep) else {
                throw SystemError("open(\(path))", errno: ENOENT)
            }
            return names
        } catch {
            throw PlatformFileError(path: path, error)
        }
    }

    static func exists(_ path: String) -> Bool {
        FileSystem.exists(path)
    }

    static func isDirectory(_ path: String) -> Bool {
        FileSystem.isDirectory(path)
    }
}

extension PlatformFileError {
    /// `EFBIG` from a capped read (`FileSystem.readAll`) is a file over `limit`, said in words.
    init(path: String, _ error: SystemError, limit: Int? = nil) {
        if let limit, error.errno == EFBIG {
            self.init(path: path, reason: .tooLarge(limit: limit))
        } else {
            self.init(path: path, reason: .system(errno: error.errno))
        }
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
