#if canImport(Glibc)
internal import Glibc
#endif

/// Who is at the other end of a connected unix socket, as the kernel vouches for it. Takes the
/// number the caller owns (and keeps open for the call), as a test's socket pair has it.
package enum PeerCredentials {
    // SO_PEERGROUPS (Linux 4.13) is newer than the headers Swift's Glibc module exposes.
    private static let peerGroupsOption: Int32 = 59
    /// A process has at most NGROUPS_MAX (65536) supplementary groups.
    private static let maxGroups = 65536

    /// The peer's process, user and group when it connected (`SO_PEERCRED`).
    package static func of(_ fd: Int32) throws(SystemError) -> (pid: Int32, uid: UInt32, gid: UInt32) {
        // struct ucred is three 32-bit fields: pid, uid, gid.
        var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        try retryingInterrupts("getsockopt(SO_PEERCRED)") { getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) }
        return credentials
    }

    /// The peer's supplementary groups (`SO_PEERGROUPS`); nil on a kernel without them.
    package static func groups(of fd: Int32) throws(SystemError) -> [UInt32]? {
        var groups = [UInt32](repeating: 0, count: 64)
        while true {
            var groupsLength = socklen_t(groups.count * MemoryLayout<UInt32>.size)
            let result = groups.withUnsafeMutableBytes {
                getsockopt(fd, SOL_SOCKET, peerGroupsOption, $0.baseAddress, &groupsLength)
            }
            if result == 0 { return Array(groups.prefix(Int(groupsLength) / MemoryLayout<UInt32>.size)) }
            let code = errno
            if code == EINTR { continue }
            // The kernel says how much room the list needs; ask again with that much.
            if code == ERANGE, groups.count < maxGroups {
                groups = [UInt32](repeating: 0, count: min(maxGroups, max(groups.count * 2, Int(groupsLength) / 4)))
                continue
            }
            if code == ENOPROTOOPT { return nil }
            throw SystemError("getsockopt(SO_PEERGROUPS)", errno: code)
        }
    }
}
