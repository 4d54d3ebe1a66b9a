package import ApsioCore
import ApsioPOSIX

/// Each app's journal cursor (`apps/NAME/cursor`): where its ingest resumes after a restart, and
/// the unit it was read among (`SavedCursor`).
///
/// The cursor moves with every batch the backend accepts, which can be many a second. `update`
/// keeps it in memory; `flushIfDue` writes it into the app's `CursorFile` (one `pwrite`: it then
/// survives any crash of apsiod, so a crash sends again at most the batch in flight), and makes
/// the writes durable against a power cut (`fdatasync`) at most once every `syncInterval`; `flush`
/// does both at once, at shutdown. A power cut therefore sends again at most an interval's worth of
/// batches (a backend drops them by `log.record.uid`); nothing is ever skipped.
///
/// Not thread-safe: one owner calls it.
package final class CursorStore {
    package let layout: StateLayout
    package let syncInterval: Duration
    private var pending: [AppName: SavedCursor] = [:]
    private var files: [AppName: CursorFile] = [:]
    private var lastSync: MonotonicInstant?

    /// What an app's cursor is before any entry was accepted, when its reading starts from the
    /// oldest entry (`StartAt=head`, or a journal that held none of its entries when it was first
    /// served): not a journal cursor, which always starts `s=`.
    package static let fromHead = "head"

    package init(layout: StateLayout, syncInterval: Duration = .seconds(5)) {
        self.layout = layout
        self.syncInterval = syncInterval
    }

    /// The newest position: the one not yet written, else the one on disk, else nil.
    package func cursor(for app: AppName) throws(StateStoreError) -> SavedCursor? {
        if let cursor = pending[app] { return cursor }
        return try file(for: app, creating: false)?.newest
    }

    /// Remembers the cursor of the last entry the backend accepted, and its unit; written by the
    /// next flush.
    package func update(_ saved: SavedCursor, for app: AppName) {
        pending[app] = saved
    }

    package var hasPendingWrites: Bool { !pending.isEmpty || files.values.contains { $0.hasUnsyncedWrites } }

    /// When the next `flushIfDue` has something to do, if anything waits: for a timer.
    package var nextWriteDue: MonotonicInstant? {
        if !pending.isEmpty { return .origin }
        guard files.values.contains(where: { $0.hasUnsyncedWrites }) else { return nil }
        return lastSync.map { $0 + syncInterval } ?? .origin
    }

    /// Writes every changed cursor, and syncs them when the last sync was at least `syncInterval`
    /// before `now`. Returns whether it wrote or synced anything.
    @discardableResult
    package func flushIfDue(now: MonotonicInstant) throws(StateStoreError) -> Bool {
        guard nextWriteDue != nil else { return false }
        let syncDue = lastSync.map { now >= $0 + syncInterval } ?? true
        guard !pending.isEmpty || syncDue else { return false }
        try flush(now: now, sync: syncDue)
        return true
    }

    /// Writes and syncs every changed cursor now.
    package func flush(now: MonotonicInstant) throws(StateStoreError) {
        try flush(now: now, sync: true)
    }

    /// A cursor that failed to write stays pending for the next flush; a failed sync is tried at
    /// the next. The interval counts from this attempt either way, so a failing disk is not hammered.
    private func flush(now: MonotonicInstant, sync: Bool) throws(StateStoreError) {
        var firstError: StateStoreError?
        for (app, saved) in pending.sorted(by: { $0.key < $1.key }) {
            do {
                guard let file = try file(for: app, creating: true) else { continue }
                try file.write(saved)
                pending[app] = nil
            } catch {
                firstError = firstError ?? error
            }
        }
        if sync {
            lastSync = now
            for (_, file) in files.sorted(by: { $0.key < $1.key }) {
                do { try file.sync() } catch { firstError = firstError ?? error }
            }
        }
        if let firstError { throw firstError }
    }

    /// Closes every cursor file; pending cursors stay in memory for a later flush.
    package func close() {
        for file in files.values { file.close() }
        files.removeAll()
    }

    /// Drops a cursor not yet written, and closes the file of an app whose state is being removed.
    package func forget(_ app: AppName) {
        pending[app] = nil
        files.removeValue(forKey: app)?.close()
    }

    private func file(for app: AppName, creating: Bool) throws(StateStoreError) -> CursorFile? {
        if let file = files[app] { return file }
        if creating {
            let layout = layout
            try StateStoreError.io { () throws(SystemError) in try layout.makeAppDirectory(app) }
        }
        guard let file = try CursorFile(path: layout.cursorFile(app), mode: 0o640, creating: creating) else { return nil }
        files[app] = file
        return file
    }
}
