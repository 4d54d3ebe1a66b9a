package import ApsioPOSIX

/// Who is at the other end of a control connection, as the kernel says (never as the peer says):
/// SO_PEERCRED for the process, user and group it connected as, SO_PEERGROUPS for its
/// supplementary groups.
package struct ControlPeer: Sendable, Equatable {
    package var pid: Int32
    package var uid: UInt32
    package var gid: UInt32
    package var groups: [UInt32]

    package init(pid: Int32, uid: UInt32, gid: UInt32, groups: [UInt32] = []) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }

    /// Whether the peer is in `group`, as its primary or a supplementary group.
    package func isMember(of group: UInt32) -> Bool {
        gid == group || groups.contains(group)
    }

    /// This process as the daemon would see it connect: its effective user and group and its
    /// supplementary groups, for what apsioctl decides itself when the daemon is not running.
    package static func thisProcess() -> ControlPeer {
        ControlPeer(
            pid: ProcessIdentity.processID, uid: ProcessIdentity.effectiveUserID, gid: ProcessIdentity.effectiveGroupID,
            groups: ProcessIdentity.supplementaryGroups)
    }

    /// The credentials of the peer of `fd`, a connected unix socket; without SO_PEERGROUPS (an
    /// older kernel) the primary group still counts.
    package static func of(_ fd: Int32) throws(SystemError) -> ControlPeer {
        let credentials = try PeerCredentials.of(fd)
        var peer = ControlPeer(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
        if let groups = try PeerCredentials.groups(of: fd) { peer.groups = groups }
        return peer
    }
}
