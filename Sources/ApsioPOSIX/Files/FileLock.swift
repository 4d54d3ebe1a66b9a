#if canImport(Glibc)
internal import Glibc
#endif

/// An flock(2) on a lock file, held until `release` or until the lock is dropped.
///
/// flock locks belong to the open file description, so two opens in one process exclude each other
/// just as two processes do, and the kernel lets go when the holder dies: a crashed `apsioctl`
/// never leaves the settings locked.
package final class FileLock: Sendable {
    private let file: OwnedFileDescriptor

    private init(file: OwnedFileDescriptor) {
        self.file = file
    }

    /// Opens (creating it when missing) and locks `path` exclusively, waiting at most `timeout` for
    /// another holder; nil when the wait ran out. A zero timeout tries once.
    package static func acquire(
        _ path: String, mode: UInt32, owner: FileOwner? = nil, timeout: Duration
    ) throws(SystemError) -> FileLock? {
        // Read-only is enough to flock, so a member of the group needs only read access.
        let file = try FileSystem.open(path, O_RDONLY | O_CREAT | O_NOFOLLOW, mode: mode)
        var info = stat()
        try retryingInterrupts("fstat(\(path))") { fstat(file.rawValue, &info) }
        // The umask may have taken bits off a file we just made.
        if info.st_uid == geteuid(), info.st_mode & 0o7777 != mode {
            try retryingInterrupts("fchmod(\(path))") { fchmod(file.rawValue, mode) }
        }
        if let owner { try owner.apply(to: file.rawValue, path: path) }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            if flock(file.rawValue, LOCK_EX | LOCK_NB) == 0 { return FileLock(file: file) }
            let code = errno
            if code == EINTR { continue }
            guard code == EWOULDBLOCK else {
                file.close()
                throw SystemError("flock(\(path))", errno: code)
            }
            if clock.now >= deadline {
                file.close()
                return nil
            }
            // Holders keep the lock for one read-modify-write of a small file: a short nap, a
            // bounded wait, and no thread parked forever on a holder that never lets go.
            usleep(5_000)
        }
    }

    package func release() {
        file.close()
    }

    deinit { release() }
}
