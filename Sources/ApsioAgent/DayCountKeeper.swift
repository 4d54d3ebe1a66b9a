import ApsioCore
import ApsioState
import Synchronization

/// One app's day count of live bytes on disk (`apps/NAME/day-bytes.json`, 16.3), failing closed:
/// a count that cannot be read starts the day as spent, and a write that fails says so, so the
/// live channel sends nothing more until one succeeds. The operator hears of a failure once,
/// when it starts, and once when it is over, not at every body or hello.
final class DayCountKeeper: Sendable {
    private let store: AppStateStore
    private let app: AppName
    private let log: Logger
    /// Whether the last write failed: the next failure is not logged again, the next success is.
    private let failing = Mutex(false)

    init(store: AppStateStore, app: AppName, log: Logger) {
        self.store = store
        self.app = app
        self.log = log
    }

    private var path: String { store.layout.dayBytesFile(app) }

    /// The count to start from, and whether it is kept on disk as it stands. A file that is there
    /// but holds no count we can read (damaged, unreadable, a directory) is not a count of 0: the
    /// day counts as spent and that is written in its place, so a restart does not forget it.
    func load(today: Int64, limits: Limits) -> (count: DayBytes, kept: Bool) {
        do {
            return (try store.dayBytes(for: app) ?? DayBytes(day: 0, bytes: 0), true)
        } catch {
            // Not the store's "fix it or remove it": the file is replaced here, by the cap.
            let why = if case .unreadable(_, let reason) = error { reason } else { "\(error)" }
            log.err("""
                the day's live bytes cannot be read from \(path) (\(why)): the day counts as spent, \
                and live sessions are capped until the UTC day ends (16.3)
                """)
            let spent = DayBytes.spent(on: today, limits: limits)
            return (spent, keep(spent, durable: true))
        }
    }

    /// Writes the count; false when it could not be written.
    func keep(_ count: DayBytes, durable: Bool) -> Bool {
        do {
            try store.saveDayBytes(count, for: app, durable: durable)
        } catch {
            let first = failing.withLock { failing in
                defer { failing = true }
                return !failing
            }
            if first {
                log.err("""
                    the day's live bytes cannot be kept in \(path) (\(error)): no live body goes out and \
                    hellos say capped until apsiod can write that file again; make room on its file system, \
                    or put right what stands in its place
                    """)
            }
            return false
        }
        let recovered = failing.withLock { failing in
            defer { failing = false }
            return failing
        }
        if recovered { log.notice("the day's live bytes are kept in \(path) again") }
        return true
    }
}
