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
        ControlPeer(
            pid: ProcessIdentity.processID, uid: ProcessIdentity.effectiveUserID, gid: ProcessIdentity.effectiveGroupID,
            groups: ProcessIdentity.supplementaryGroups)
    }

    /// The credentials of the peer of `fd`, a connected unix socket; without SO_PEERGROUPS (an
    /// older kernel) the primary group still counts.
    public static func of(_ fd: Int32) throws(SystemError) -> ControlPeer {
        let credentials = try PeerCredentials.of(fd)
        var peer = ControlPeer(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
        if let groups = try PeerCredentials.groups(of: fd) { peer.groups = groups }
        return peer
    }
}
