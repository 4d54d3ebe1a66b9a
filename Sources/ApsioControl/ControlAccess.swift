#if canImport(Glibc)
internal import Glibc
#endif

/// Who may change a setting through the control socket: root and the members of one group
/// (`apsio` on an installed machine). Anyone may read status, apps, watch and version: the
/// indicator is a transparency feature (LINUX-PROFILE §16); only the installation ids in `apps`
/// are kept to the same few.
package struct ControlAccess: Sendable, Equatable {
    package var adminGroup: String
    /// The user the state directory and its installation ids belong to: the daemon's own user.
    /// It can read the ids on disk anyway, so they are not withheld from it (a developer running
    /// apsiod as themselves, `make demo`); nil when nobody is to be let in on that ground.
    package var stateOwner: UInt32?

    package init(adminGroup: String = "apsio", stateOwner: UInt32? = nil) {
        self.adminGroup = adminGroup
        self.stateOwner = stateOwner
    }

    /// Decides for one peer; the group is looked up on every change request, so a group created
    /// or renumbered after the daemon started counts at once.
    package func mayChange(_ peer: ControlPeer) -> Bool {
        Self.mayChange(peer, adminGID: groupID())
    }

    package static func mayChange(_ peer: ControlPeer, adminGID: UInt32?) -> Bool {
        if peer.uid == 0 { return true }
        guard let adminGID else { return false }
        return peer.isMember(of: adminGID)
    }

    /// Whether `peer` may see the apps' installation ids: the same right as changing a setting,
    /// and the state's owner. With a tester id, which the backend's policy publishes, an
    /// installation id makes the tester proof (spec 16.1), so another local user could pass for
    /// this machine's install.
    package func maySeeInstallationIDs(_ peer: ControlPeer) -> Bool {
        peer.uid == stateOwner || mayChange(peer)
    }

    /// What is shown in place of a withheld installation id.
    package var installationIDWithheld: String {
        "hidden (shown to root and members of the group \(adminGroup))"
    }

    /// The group's id, nil when no such group exists.
    package func groupID() -> UInt32? {
        var entry = group()
        var buffer = [CChar](repeating: 0, count: 4096)
        var result: UnsafeMutablePointer<group>?
        while true {
            let code = getgrnam_r(adminGroup, &entry, &buffer, buffer.count, &result)
            if code == ERANGE, buffer.count < 1 << 20 {
                buffer = [CChar](repeating: 0, count: buffer.count * 4)
                continue
            }
            guard code == 0, let result else { return nil }
            return result.pointee.gr_gid
        }
    }

    /// What a refused peer is told.
    package var refusal: String {
        "only root and members of the group \(adminGroup) may change apsiod's settings"
    }
}
