internal import ApsioPOSIX
#if canImport(Glibc)
internal import Glibc
#endif

/// A journal file libsystemd cannot read, and why in words an operator can act on.
package struct UnreadableJournalFile: Sendable, Equatable, CustomStringConvertible {
    package var path: String
    package var reason: String

    package var description: String { "the journal file \(path) cannot be read (\(reason)); it is skipped and the other files are read" }
}

/// Finds the journal files of a source that libsystemd would skip without a word (truncated by a
/// crash or a full disk, damaged, of a format this systemd does not know), each once: a file is
/// known by its device and inode, so one checked is not opened again until it is replaced.
///
/// libsystemd already reads on past such a file, and drops one that fails while it is read; what
/// it does not do is say so, and an operator whose lines are missing needs to know why.
///
/// A file being created is not one of them. journald and systemd-journal-remote create a new
/// file, write its header, then allocate its arena: a look in between, which the new file's
/// inotify event invites at every rotation, finds an empty file or a header promising more than
/// the file holds, as a truncated file does (ENODATA). So a file that is empty or whose header says
/// it holds no entry yet, modified within `settlingSeconds`, is looked at again at the journal's
/// next change (the writer's next write is one) instead of being reported; one still unreadable
/// once it is older is reported.
/// Any other ENODATA file is opened a second time before it is reported, in case the writer got
/// past that moment between the two looks; garbage, zeros and files torn past their entries are
/// reported at once.
struct JournalFileCheck {
    private struct FileKey: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    let source: JournalSource
    private var checked: Set<FileKey> = []
    /// A directory of journal files is short; this bounds a directory someone filled.
    static let maxFiles = 4096
    /// A journal header is a few hundred bytes (264 in systemd 252); a larger `header_size` is no
    /// header a writer makes.
    static let maxHeaderBytes = 4096
    static let settlingSeconds: Int64 = 10
    /// Whether the last look found a file too young to judge, to be looked at again.
    private(set) var hasUnsettled = false

    init(source: JournalSource) {
        self.source = source
    }

    /// The files not checked before that libsystemd cannot read. `nowUnixSeconds` is the wall
    /// clock that file modification times are compared with (the system's when nil).
    mutating func newlyUnreadable(nowUnixSeconds: Int64? = nil) -> [UnreadableJournalFile] {
        let now = nowUnixSeconds ?? Int64(time(nil))
        var found: [UnreadableJournalFile] = []
        var unsettled = false
        for path in Self.files(of: source).prefix(Self.maxFiles) {
            guard let info = (try? FileSystem.status(path)) ?? nil, info.kind == .regular else { continue }
            let key = FileKey(device: info.device, inode: info.inode)
            guard !checked.contains(key) else { continue }
            if let error = Journal.unreadable(file: path) {
                if error.errno == ENODATA, now - info.modifiedUnixSeconds < Self.settlingSeconds, Self.holdsNoEntryYet(path) {
                    unsettled = true
                    continue
                }
                if error.errno != ENODATA || Journal.unreadable(file: path) != nil {
                    found.append(UnreadableJournalFile(path: path, reason: Self.reason(error.errno)))
                }
            }
            checked.insert(key)
        }
        hasUnsettled = unsettled
        return found
    }

    /// Whether the file is empty (created, its header not written yet) or starts with a journal
    /// header (its signature and a `header_size` that covers `n_entries`) whose `n_entries` is 0:
    /// a file before its first entry (sd-journal's journal-def.h: `header_size` at byte 88,
    /// `n_entries` at byte 152, little-endian).
    static func holdsNoEntryYet(_ path: String) -> Bool {
        guard let file = try? FileSystem.open(path, O_RDONLY | O_NOCTTY) else { return false }
        defer { file.close() }
        guard let bytes = try? FileSystem.read(file, path: path, at: 0, count: 160) else { return false }
        if bytes.isEmpty { return true }
        guard bytes.count == 160, bytes.prefix(8).elementsEqual("LPKSHHRH".utf8) else { return false }
        func field(_ offset: Int) -> UInt64 { bytes[offset..<offset + 8].reversed().reduce(0) { $0 << 8 | UInt64($1) } }
        let headerSize = field(88)
        return headerSize >= UInt64(bytes.count) && headerSize <= UInt64(maxHeaderBytes) && field(152) == 0
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
