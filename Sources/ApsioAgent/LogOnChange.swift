import ApsioCore
import Synchronization

/// Passes on a line only when it says something other than the last one: a failure repeated on
/// every retry is logged once, the next failure or the recovery after it again.
final class LogOnChange: Sendable {
    private let last = Mutex<String?>(nil)
    private let log: Logger
    private let level: LogLevel

    init(_ log: Logger, level: LogLevel) {
        self.log = log
        self.level = level
    }

    /// `failure`: nil when things went well, which is remembered but not written.
    func note(_ failure: String?) {
        let changed = last.withLock { last -> Bool in
            defer { last = failure }
            return last != failure
        }
        if changed, let failure { log.log(level, failure) }
    }
}
