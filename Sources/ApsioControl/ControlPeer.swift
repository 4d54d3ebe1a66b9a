#if canImport(Glibc)
internal import Glibc
#endif
public import ApsioPOSIX

/// Who is at the other end of a control connection, as the kernel says (never as the peer says):
/// SO_PEERCRED for the process, user and group it connected as, SO_PEERGROUPS for its
/// supplementary groups.
public struct ControlPeer: Sendable, Equatable {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
    public var groups: [UInt32]

    public init(pid: Int32, uid: UInt32, gid: UInt32, groups: [UInt32] = []) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }

    /// Whether the peer is in `group`, as its primary or a supplementary group.
    public func isMember(of group: UInt32) -> Bool {
        gid == group || groups.contains(group)
    }

    /// This process as the daemon would see it connect: its effective user and group and its
    /// supplementary groups, for what apsioctl decides itself when the daemon is not running.
    public static func thisProcess() -> ControlPeer {
        let count = getgroups(0, nil)
        var groups = [gid_t](repeating: 0, count: Int(max(count, 0)))
        let filled = groups.isEmpty ? 0 : getgroups(Int32(groups.count), &groups)
        return ControlPeer(pid: getpid(), uid: geteuid(), gid: getegid(), groups: Array(groups.prefix(Int(max(filled, 0)))))
    }

    // SO_PEERGROUPS (Linux 4.13) is newer than the headers Swift's Glibc module exposes.
    private static let peerGroupsOption: Int32 = 59
    /// A process has at most NGROUPS_MAX (65536) supplementary groups.
    private static let maxGroups = 65536

    /// The credentials of the peer of `fd`, a connected unix socket.
    public static func of(_ fd: Int32) throws(SystemError) -> ControlPeer {
        // struct ucred is three 32-bit fields: pid, uid, gid.
        var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        try retryingInterrupts("getsockopt(SO_PEERCRED)") { getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) }
        var peer = ControlPeer(pid: credentials.0, uid: credentials.1, gid: credentials.2)
        var groups = [UInt32](repeating: 0, count: 64)
        while true {
            var groupsLength = socklen_t(groups.count * MemoryLayout<UInt32>.size)
            let result = groups.withUnsafeMutableBytes {
                getsockopt(fd, SOL_SOCKET, peerGroupsOption, $0.baseAddress, &groupsLength)
            }
            if result == 0 {
                peer.groups = Array(groups.prefix(Int(groupsLength) / MemoryLayout<UInt32>.size))
                return peer
            }
            let code = errno
            // The kernel says how much room the list needs; ask again with that much.
            if code == ERANGE, groups.count < maxGroups {
                groups = [UInt32](repeating: 0, count: min(maxGroups, max(groups.count * 2, Int(groupsLength) / 4)))
                continue
            }
            // A kernel without SO_PEERGROUPS: the primary group still counts.
            if code == ENOPROTOOPT { return peer }
            throw SystemError("getsockopt(SO_PEERGROUPS)", errno: code)
        }
    }
}
