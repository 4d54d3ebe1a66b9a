#if canImport(Glibc)
internal import Glibc
#endif
public import ApsioCore
internal import ApsioPOSIX

/// Each app's journal cursor (`apps/NAME/cursor`): where its ingest resumes after a restart.
///
/// The cursor moves with every batch the backend accepts, which can be many a second; writing it
/// each time would be a sync a batch for nothing. So `update` keeps it in memory and `flushIfDue`
/// writes what changed at most once every `minimumInterval` (all apps in one go); `flush` writes at
/// once, at shutdown. A crash loses at most an interval of progress, which means entries sent again
/// (a backend drops them by `log.record.uid`), never entries lost.
///
/// Not thread-safe: one owner calls it.
public final class CursorStore {
    public let layout: StateLayout
    public let minimumInterval: Duration
    private var pending: [AppName: String] = [:]
    private var lastWrite: MonotonicInstant?

    /// A journal cursor is about 150 bytes; a file longer than this is not one.
    static let maxCursorBytes = 1024

    public init(layout: StateLayout, minimumInterval: Duration = .seconds(10)) {
        self.layout = layout
        self.minimumInterval = minimumInterval
    }

    /// The newest cursor: the one not yet written, else the one on disk, else nil.
    public func cursor(for app: AppName) throws(StateStoreError) -> String? {
        if let cursor = pending[app] { return cursor }
        let path = layout.cursorFile(app)
        let bytes: [UInt8]?
        do {
            bytes = try AtomicFile.read(path, maxBytes: Self.maxCursorBytes)
        } catch {
            throw error.errno == EFBIG ? .unreadable(path: path, reason: "longer than a journal cursor") : .system(error)
        }
        guard let bytes else { return nil }
        guard bytes.last == 0x0A, bytes.dropLast().allSatisfy({ (0x21...0x7E).contains($0) }), bytes.count > 1 else {
            throw .unreadable(path: path, reason: "not a journal cursor")
        }
        return String(decoding: bytes.dropLast(), as: UTF8.self)
    }

    /// Remembers the cursor of the last entry the backend accepted; written by a later flush.
    public func update(_ cursor: String, for app: AppName) {
        pending[app] = cursor
    }

    public var hasPendingWrites: Bool { !pending.isEmpty }

    /// When the next `flushIfDue` will write, if anything waits: for a timer.
    public var nextWriteDue: MonotonicInstant? {
        guard !pending.isEmpty else { return nil }
        return lastWrite.map { $0 + minimumInterval } ?? .origin
    }

    /// Writes the changed cursors when the last write was at least `minimumInterval` before `now`.
    /// Returns whether it wrote.
    @discardableResult
    public func flushIfDue(now: MonotonicInstant) throws(StateStoreError) -> Bool {
        guard let due = nextWriteDue, now >= due else { return false }
        try flush(now: now)
        return true
    }

    /// Writes every changed cursor now. A cursor that failed to write stays pending for the next
    /// flush; the interval counts from this attempt either way, so a failing disk is not hammered.
    public func flush(now: MonotonicInstant) throws(StateStoreError) {
        guard !pending.isEmpty else { return }
        lastWrite = now
        var firstError: StateStoreError?
        for (app, cursor) in pending.sorted(by: { $0.key < $1.key }) {
            let path = layout.cursorFile(app)
            let layout = layout
            do {
                try layout.makeAppDirectory(app)
                try AtomicFile.write(Array((cursor + "\n").utf8), to: path, mode: 0o640)
                pending[app] = nil
            } catch {
                firstError = firstError ?? .system(error)
            }
        }
        if let firstError { throw firstError }
    }

    /// Drops a cursor not yet written, for an app whose state is being removed.
    public func forget(_ app: AppName) {
        pending[app] = nil
    }
}
