import ApsioCore
import ApsioPolicy
import Synchronization

/// How loudly each policy event is logged: what changes the app's capture, or keeps it from
/// changing, is worth a notice or a warning; a policy that did not change is not. A failed fetch
/// or a refused policy is a warning when it is new and a debug line while the same one repeats,
/// retry after retry; the next good answer ends it.
///
/// The problem in force is kept for `apsioctl status` too: until an app has a policy, its records
/// wait, and a backend that cannot be reached (a proxy down, say) must be visible there.
final class PolicyEventLog: Sendable {
    private let log: Logger
    private let lastProblem = Mutex<String?>(nil)
    private let shownProblem = Mutex<String?>(nil)

    /// What went wrong with the last fetch, until an answer is good again; nil when nothing did.
    var problem: String? { shownProblem.withLock { $0 } }

    init(_ log: Logger) { self.log = log }

    func note(_ event: PolicyFetchEvent) {
        let level: LogLevel
        switch event {
        case .failed(let failure, _):
            level = problem("\(failure)")
            shownProblem.withLock { $0 = "cannot be fetched: \(failure)" }
        case .malformed(let error):
            level = problem("\(error)")
            shownProblem.withLock { $0 = "\(event)" }
        case .fetched(let changed, let ignoredLive):
            lastProblem.withLock { $0 = nil }
            shownProblem.withLock { $0 = nil }
            level = changed || ignoredLive != nil ? .notice : .debug
        case .notModified:
            lastProblem.withLock { $0 = nil }
            shownProblem.withLock { $0 = nil }
            level = .debug
        case .loadedFromDisk: level = .info
        case .storedPolicyUnusable, .notSaved: level = .warning
        }
        log.log(level, event.description)
    }

    private func problem(_ text: String) -> LogLevel {
        let repeated = lastProblem.withLock { last in
            defer { last = text }
            return last == text
        }
        return repeated ? .debug : .warning
    }
}
