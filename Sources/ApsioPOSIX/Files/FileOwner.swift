#if canImport(Glibc)
internal import Glibc
#endif

/// Who a state file written by either program must belong to, so that the other can still read it.
///
/// The state directory belongs to the user and group `apsio`. `apsioctl` runs as root or as a member
/// of the group `apsio`; a file it made would otherwise belong to root (unreadable by the daemon)
/// or carry the member's own primary group. So a shared file takes the directory's group always,
/// and its user too when the writer is root (the only one allowed to give a file away).
package struct FileOwner: Sendable, Equatable {
    /// nil keeps the writer's own user.
    package var uid: UInt32?
    package var gid: UInt32

    package init(uid: UInt32?, gid: UInt32) {
        self.uid = uid
        self.gid = gid
    }

    /// The owner files in `directory` should have when this process writes them.
    package static func matching(directory: String) throws(SystemError) -> FileOwner {
        var info = stat()
        try retryingInterrupts("stat(\(directory))") { stat(directory, &info) }
        return FileOwner(uid: geteuid() == 0 ? info.st_uid : nil, gid: info.st_gid)
    }

    func apply(to fd: Int32, path: String) throws(SystemError) {
        var info = stat()
        try retryingInterrupts("fstat(\(path))") { fstat(fd, &info) }
        let wantedUID = uid ?? info.st_uid
        guard info.st_uid != wantedUID || info.st_gid != gid else { return }
        try retryingInterrupts("fchown(\(path))") { fchown(fd, wantedUID, gid) }
    }
}
