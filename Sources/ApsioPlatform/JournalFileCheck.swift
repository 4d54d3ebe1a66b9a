#if canImport(Glibc)
internal import Glibc
#endif

/// A journal file libsystemd cannot read, and why in words an operator can act on.
public struct UnreadableJournalFile: Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public var description: String { "the journal file \(path) cannot be read (\(reason)); it is skipped and the other files are read" }
}

/// Finds the journal files of a source that libsystemd would skip without a word (truncated by a
/// crash or a full disk, damaged, of a format this systemd does not know), each once: a file is
/// known by its device and inode, so one checked is not opened again until it is replaced.
///
/// libsystemd already reads on past such a file, and drops one that fails while it is read; what
/// it does not do is say so, and an operator whose lines are missing needs to know why.
struct JournalFileCheck {
    private struct FileKey: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    let source: JournalSource
    private var checked: Set<FileKey> = []
    /// A directory of journal files is short; this bounds a directory someone filled.
    static let maxFiles = 4096

    init(source: JournalSource) {
        self.source = source
    }

    /// The files not checked before that libsystemd cannot read.
    mutating func newlyUnreadable() -> [UnreadableJournalFile] {
        var found: [UnreadableJournalFile] = []
        for path in Self.files(of: source).prefix(Self.maxFiles) {
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            guard checked.insert(FileKey(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))).inserted else { continue }
            if let error = Journal.unreadable(file: path) {
                found.append(UnreadableJournalFile(path: path, reason: Self.reason(error.errno)))
            }
        }
        return found
    }

    static func reason(_ code: Int32) -> String {
        switch code {
        case ENODATA: "it is truncated"
        case EPROTONOSUPPORT: "it is not a journal file this systemd reads: another format, or a feature it does not know"
        case EBADMSG: "it is damaged"
        case EACCES, EPERM: "permission denied; the daemon's user needs to be in the systemd-journal group"
        default: String(cString: strerror(code))
        }
    }

    /// The journal files a reader of `source` opens: every `*.journal` (and journald's renamed
    /// `*.journal~`) of the directory, or the system journal's files under /run and /var.
    static func files(of source: JournalSource) -> [String] {
        switch source {
        case .directory(let directory):
            return journalFiles(in: directory, prefix: nil)
        case .system:
            var files: [String] = []
            for base in ["/run/log/journal", "/var/log/journal"] {
                for machine in (try? SmallFile.subdirectories(of: base, limit: maxFiles)) ?? [] {
                    files += journalFiles(in: join(base, machine), prefix: "system")
                }
            }
            return files
        }
    }

    private static func journalFiles(in directory: String, prefix: String?) -> [String] {
        ((try? SmallFile.names(in: directory, limit: maxFiles)) ?? [])
            .filter { ($0.hasSuffix(".journal") || $0.hasSuffix(".journal~")) && (prefix.map($0.hasPrefix) ?? true) }
            .map { join(directory, $0) }
    }
}
