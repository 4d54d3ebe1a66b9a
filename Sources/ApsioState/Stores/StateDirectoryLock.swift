internal import ApsioPOSIX

/// The daemon's hold on its state directory: an flock(2) on `apsiod.lock`, taken at start and kept
/// until the daemon stops, so that two daemons never serve from one state directory.
///
/// One lock for the whole directory, not one per app: fifty apps would otherwise keep fifty
/// descriptors open for nothing but exclusion. Every record queue opened under it relies on it
/// (`RecordQueue`'s `coveredBy`). `settings.lock` is separate: `apsioctl` takes it around each
/// change of the settings, while the daemon runs or not.
package final class StateDirectoryLock: Sendable {
    package let path: String
    private let lock: FileLock

    private init(path: String, lock: FileLock) {
        self.path = path
        self.lock = lock
    }

    /// Takes the lock, waiting at most `timeout` for a daemon still letting go (systemd may start
    /// the next one as the last exits); `StateStoreError.inUse` when it does not.
    package static func acquire(
        _ layout: StateLayout, timeout: Duration = .seconds(2)
    ) throws(StateStoreError) -> StateDirectoryLock {
        let path = layout.daemonLockFile
        guard let lock = try StateStoreError.io({ () throws(SystemError) in
            try FileLock.acquire(path, mode: 0o600, timeout: timeout)
        }) else { throw .inUse(path: path) }
        return StateDirectoryLock(path: path, lock: lock)
    }

    /// Lets go: the daemon calls it once every app's queue is closed.
    package func release() {
        lock.release()
    }
}
