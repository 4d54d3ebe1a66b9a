import ApsioCore
import ApsioPlatform
import ApsioState

/// One app's saved journal position (LINUX-PROFILE §11), as its exporter keeps it: every position
/// saved is one of its unit's entries (or the head), read with its unit's matches, kept with that
/// unit and with whether the app was withheld when it was saved. Written after each accepted
/// batch, synced now and then (`AppExporterConfiguration.cursorSyncInterval`) and at the stop.
struct AppCursor {
    private let store: CursorStore
    private let app: AppName
    private let unit: String
    private let log: Logger

    init(layout: StateLayout, app: AppName, unit: String, syncInterval: Duration, log: Logger) {
        store = CursorStore(layout: layout, syncInterval: syncInterval)
        self.app = app
        self.unit = unit
        self.log = log
    }

    /// The newest position: the one not yet written, else the one on disk.
    func saved() throws(StateStoreError) -> SavedCursor? {
        try store.cursor(for: app)
    }

    /// Kept for the next write.
    func save(_ cursor: String, withheld: Bool) {
        store.update(SavedCursor(cursor, unit: unit, withheld: withheld), for: app)
    }

    func save(_ point: JournalStartPoint, withheld: Bool) {
        switch point {
        case .head: save(CursorStore.fromHead, withheld: withheld)
        case .after(let cursor): save(cursor, withheld: withheld)
        }
    }

    /// The saved position marked withheld and written now (`IngestReadingAction.markWithheld`).
    func markWithheld(now: MonotonicInstant) {
        let current: SavedCursor?
        do { current = try saved() } catch {
            log.err("cannot read the journal cursor to mark it withheld: \(error)")
            return
        }
        guard let current, !current.withheld else { return }
        store.update(SavedCursor(current.cursor, unit: current.unit ?? unit, withheld: true), for: app)
        write(force: true, now: now)
    }

    /// `force`: written and synced now; otherwise written if a position waits and synced if due.
    func write(force: Bool, now: MonotonicInstant) {
        do {
            if force { try store.flush(now: now) } else { try store.flushIfDue(now: now) }
        } catch {
            log.err("cannot save the journal cursor: \(error); it is tried again")
            return
        }
        // Written and synced: an idle app holds no descriptor for its cursor file. It is opened
        // again at the next write, so busy ingest keeps it open between syncs.
        if !store.hasPendingWrites { store.close() }
    }

    /// When the next write or sync is due, if one waits: for the exporter's timer.
    var nextWriteDue: MonotonicInstant? { store.nextWriteDue }

    func close() { store.close() }
}
