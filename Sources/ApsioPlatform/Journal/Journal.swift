internal import CSystemd
#if canImport(Glibc)
internal import Glibc
#endif

/// Which journal to read.
package enum JournalSource: Sendable, Equatable {
    /// This machine's system journal (`SD_JOURNAL_LOCAL_ONLY | SD_JOURNAL_SYSTEM`): the services'
    /// entries, never a user's session journal. With every journal namespace
    /// (`SD_JOURNAL_ALL_NAMESPACES`): a unit with `LogNamespace=` logs to
    /// `/var/log/journal/MACHINE.NAMESPACE` through a journald of its own, and is read there with no
    /// setting of apsiod's, its lines found by `_SYSTEMD_UNIT=` as anywhere else.
    case system
    /// The journal files in a directory, as `journalctl -D` reads them.
    case directory(String)
}

/// The one owner of an `sd_journal` handle: each call is a thin, typed wrapper, and the handle is
/// closed exactly once. Not thread-safe, like the handle itself: one task uses it at a time.
final class Journal {
    private var handle: OpaquePointer?
    let source: JournalSource
    /// Entries this opening moved forward to: how much of the files its mappings may hold.
    private(set) var entriesRead = 0

    init(_ source: JournalSource) throws(JournalError) {
        self.source = source
        var opened: OpaquePointer?
        let code: Int32
        switch source {
        case .system:
            code = sd_journal_open_namespace(
                &opened, nil, Int32(SD_JOURNAL_LOCAL_ONLY | SD_JOURNAL_SYSTEM | SD_JOURNAL_ALL_NAMESPACES))
        case .directory(let path):
            code = sd_journal_open_directory(&opened, path, 0)
        }
        guard code >= 0, let opened else {
            throw .failed("sd_journal_open", returned: code, detail: source.description)
        }
        handle = opened
    }

    deinit { close() }

    /// Why libsystemd cannot read the journal file at `path`, nil when it can. Reading a directory,
    /// libsystemd skips such a file without a word; this opens it alone to learn that it would.
    static func unreadable(file path: String) -> JournalError? {
        var opened: OpaquePointer?
        let code = path.withCString { pointer -> Int32 in
            var paths: [UnsafePointer<CChar>?] = [pointer, nil]
            return sd_journal_open_files(&opened, &paths, 0)
        }
        if let opened { sd_journal_close(opened) }
        return code < 0 ? .failed("sd_journal_open_files", returned: code, detail: path) : nil
    }

    func close() {
        guard let handle else { return }
        self.handle = nil
        sd_journal_close(handle)
    }

    private func open(_ operation: String) throws(JournalError) -> OpaquePointer {
        guard let handle else { throw JournalError(operation, errno: EBADF, detail: "the journal is closed") }
        return handle
    }

    @discardableResult
    private func check(_ operation: String, _ code: Int32, detail: String = "") throws(JournalError) -> Int32 {
        guard code >= 0 else { throw .failed(operation, returned: code, detail: detail) }
        return code
    }

    // MARK: Matches

    /// `FIELD=value`; matches of the same field are OR'ed, of different fields AND'ed, until a
    /// disjunction starts the next group.
    func addMatch(_ match: String) throws(JournalError) {
        let handle = try open("sd_journal_add_match")
        var match = match
        let code = match.withUTF8 { sd_journal_add_match(handle, $0.baseAddress, $0.count) }
        try check("sd_journal_add_match", code, detail: match)
    }

    /// Forgets every match, so that the next seek reads with the matches added after it.
    func flushMatches() throws(JournalError) {
        sd_journal_flush_matches(try open("sd_journal_flush_matches"))
    }

    func addDisjunction() throws(JournalError) {
        try check("sd_journal_add_disjunction", sd_journal_add_disjunction(try open("sd_journal_add_disjunction")))
    }

    // MARK: Moving

    /// Moves to the next entry; false at the end.
    func next() throws(JournalError) -> Bool {
        guard try check("sd_journal_next", sd_journal_next(try open("sd_journal_next"))) > 0 else { return false }
        entriesRead += 1
        return true
    }

    /// Moves to the previous entry; false at the start.
    func previous() throws(JournalError) -> Bool {
        try check("sd_journal_previous", sd_journal_previous(try open("sd_journal_previous"))) > 0
    }

    func seekHead() throws(JournalError) {
        try check("sd_journal_seek_head", sd_journal_seek_head(try open("sd_journal_seek_head")))
    }

    /// Before the first entry of the boot `bootID` (32 hex digits) whose monotonic time is at least
    /// `microseconds`. When the journal has no entry of that boot, the next entry read is of
    /// another boot or none: the caller checks.
    func seekMonotonic(bootID: String, microseconds: UInt64) throws(JournalError) {
        let handle = try open("sd_journal_seek_monotonic_usec")
        var id = sd_id128_t()
        try check("sd_id128_from_string", sd_id128_from_string(bootID, &id), detail: bootID)
        try check("sd_journal_seek_monotonic_usec", sd_journal_seek_monotonic_usec(handle, id, microseconds))
    }

    func seekTail() throws(JournalError) {
        try check("sd_journal_seek_tail", sd_journal_seek_tail(try open("sd_journal_seek_tail")))
    }

    /// Seeks to the cursor's place; `next()` then lands on the cursor's entry when it still
    /// exists, else on the first entry after where it was.
    func seekCursor(_ cursor: String) throws(JournalError) {
        let handle = try open("sd_journal_seek_cursor")
        try check("sd_journal_seek_cursor", sd_journal_seek_cursor(handle, cursor), detail: cursor)
    }

    // MARK: The current entry

    func cursor() throws(JournalError) -> String {
        let handle = try open("sd_journal_get_cursor")
        var text: UnsafeMutablePointer<CChar>?
        try check("sd_journal_get_cursor", sd_journal_get_cursor(handle, &text))
        guard let text else { throw JournalError("sd_journal_get_cursor", errno: EINVAL) }
        defer { free(text) }
        return String(cString: text)
    }

    /// Whether the current entry is the one `cursor` names.
    func isAt(_ cursor: String) throws(JournalError) -> Bool {
        let handle = try open("sd_journal_test_cursor")
        return try check("sd_journal_test_cursor", sd_journal_test_cursor(handle, cursor), detail: cursor) > 0
    }

    func realtimeMicroseconds() throws(JournalError) -> UInt64 {
        let handle = try open("sd_journal_get_realtime_usec")
        var usec: UInt64 = 0
        try check("sd_journal_get_realtime_usec", sd_journal_get_realtime_usec(handle, &usec))
        return usec
    }

    /// Calls `body` with each `FIELD=value` of the current entry. The bytes point into the mapped
    /// file or a decompression buffer and are valid only during that call. A field that cannot be
    /// read (a compression this library lacks) is skipped rather than failing the entry.
    func forEachField(_ body: (UnsafeRawBufferPointer) -> Void) throws(JournalError) {
        let handle = try open("sd_journal_enumerate_available_data")
        sd_journal_restart_data(handle)
        var data: UnsafeRawPointer?
        var length = 0
        while true {
            let code = sd_journal_enumerate_available_data(handle, &data, &length)
            if code == 0 { return }
            try check("sd_journal_enumerate_available_data", code)
            if let data { body(UnsafeRawBufferPointer(start: data, count: length)) }
        }
    }

    /// Fields at least this long are read up to this many bytes (compressed ones decompressed only
    /// that far); 0 would mean no limit, which a caller never asks for.
    func setDataThreshold(_ bytes: Int) throws(JournalError) {
        let handle = try open("sd_journal_set_data_threshold")
        try check("sd_journal_set_data_threshold", sd_journal_set_data_threshold(handle, max(1, bytes)))
    }

    // MARK: Waiting for changes

    /// The inotify descriptor sd-journal watches the files with; owned by the handle. Asking for it
    /// before the first read is what makes changes during that read wake the next wait.
    func fileDescriptor() throws(JournalError) -> Int32 {
        try check("sd_journal_get_fd", sd_journal_get_fd(try open("sd_journal_get_fd")))
    }

    /// When to call `process()` even without an event, as a CLOCK_MONOTONIC time in microseconds;
    /// nil when only the descriptor matters (inotify works on the directory).
    func processDeadline() throws(JournalError) -> UInt64? {
        let handle = try open("sd_journal_get_timeout")
        var usec: UInt64 = 0
        try check("sd_journal_get_timeout", sd_journal_get_timeout(handle, &usec))
        return usec == UInt64.max ? nil : usec
    }

    enum Change: Equatable {
        /// Nothing that concerns the reader.
        case none
        /// Entries were appended.
        case appended
        /// Files were added, removed or rotated: the place of the current entry may have moved.
        case invalidated
    }

    func process() throws(JournalError) -> Change {
        let code = try check("sd_journal_process", sd_journal_process(try open("sd_journal_process")))
        switch code {
        case Int32(SD_JOURNAL_APPEND): return .appended
        case Int32(SD_JOURNAL_INVALIDATE): return .invalidated
        default: return .none
        }
    }
}

extension JournalSource: CustomStringConvertible {
    package var description: String {
        switch self {
        case .system: "the system journal"
        case .directory(let path): "journal directory \(path)"
        }
    }
}
