#if canImport(Glibc)
internal import Glibc
#endif

/// Whether some process holds an exclusive flock(2) on a file, asked without waiting and without
/// keeping any lock: what tells another program that a daemon holding its lock file runs.
package enum FlockProbe {
    package enum Answer: Sendable, Equatable {
        case held
        case free
        /// No such file: nobody ever took the lock there.
        case missing
    }

    /// Asks with a shared lock taken and let go at once (a shared lock conflicts only with an
    /// exclusive one, so two probes never see each other); a file this process may not open is
    /// looked up in the kernel's table of locks instead (`ProcLocks`).
    package static func exclusiveLock(on path: String) throws(SystemError) -> Answer {
        let file: OwnedFileDescriptor
        do {
            file = try FileSystem.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
        } catch where error.errno == ENOENT {
            return .missing
        } catch where error.errno == EACCES || error.errno == EPERM {
            guard let status = try FileSystem.status(path) else { return .missing }
            guard let table = try FileSystem.readAll(ProcLocks.path, maxBytes: ProcLocks.maxBytes) else {
                throw SystemError("open(\(ProcLocks.path))", errno: ENOENT)
            }
            return ProcLocks.holdsExclusiveFlock(table, device: status.device, inode: status.inode) ? .held : .free
        }
        // Closing it lets the shared lock go.
        defer { file.close() }
        while true {
            if flock(file.rawValue, LOCK_SH | LOCK_NB) == 0 { return .free }
            let code = errno
            if code == EINTR { continue }
            if code == EWOULDBLOCK { return .held }
            throw SystemError("flock(\(path))", errno: code)
        }
    }
}
