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
    /// The problem in force: `key` tells a repeat of the same one (the retry's delay aside),
    /// `shown` is what status says.
    private let current = Mutex<(key: String, shown: String)?>(nil)

    /// What went wrong with the last fetch, until an answer is good again; nil when nothing did.
    var problem: String? { current.withLock { $0?.shown } }

    init(_ log: Logger) { self.log = log }

    func note(_ event: PolicyFetchEvent) {
        let level: LogLevel
        switch event {
        case .failed(let failure, _): level = problem("\(failure)", shown: "cannot be fetched: \(failure)")
        case .malformed(let error): level = problem("\(error)", shown: "\(event)")
        case .fetched(let changed, let ignoredLive):
            current.withLock { $0 = nil }
            level = changed || ignoredLive != nil ? .notice : .debug
        case .notModified:
            current.withLock { $0 = nil }
            level = .debug
        case .loadedFromDisk: level = .info
        case .storedPolicyUnusable, .notSaved: level = .warning
        }
        log.log(level, event.description)
    }

    private func problem(_ key: String, shown: String) -> LogLevel {
        let repeated = current.withLock { current in
            defer { current = (key, shown) }
            return current?.key == key
        }
        return repeated ? .debug : .warning
    }
}
