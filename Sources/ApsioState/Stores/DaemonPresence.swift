internal import ApsioPOSIX

/// Whether an apsiod serves from a state directory, as its lock says: the daemon holds
/// `apsiod.lock` from start to stop (`StateDirectoryLock`), whatever became of its control socket.
/// apsioctl asks before it takes a socket nobody answers on for a daemon that is not running: a
/// setting stored "for the next start" while one runs would not apply, and an operator's
/// `allow-live off` would leave live on.
package enum DaemonPresence: Sendable, Equatable {
    case running
    case notRunning
    /// The lock could not be asked (the state directory may not be searched by this user); why.
    case unknown(String)

    package static func of(_ layout: StateLayout) -> DaemonPresence {
        do {
            return try FlockProbe.exclusiveLock(on: layout.daemonLockFile) == .held ? .running : .notRunning
        } catch {
            return .unknown(error.description)
        }
    }
}
