#if canImport(Glibc)
internal import Glibc
#endif

/// Who may change a setting through the control socket: root and the members of one group
/// (`apsio` on an installed machine). Anyone may read status, apps, watch and version: the
/// indicator is a transparency feature (LINUX-PROFILE §16).
public struct ControlAccess: Sendable, Equatable {
    public var adminGroup: String

    public init(adminGroup: String = "apsio") {
        self.adminGroup = adminGroup
    }

    /// Decides for one peer; the group is looked up on every change request, so a group created
    /// or renumbered after the daemon started counts at once.
    public func mayChange(_ peer: ControlPeer) -> Bool {
        Self.mayChange(peer, adminGID: groupID())
    }

    public static func mayChange(_ peer: ControlPeer, adminGID: UInt32?) -> Bool {
        if peer.uid == 0 { return true }
        guard let adminGID else { return false }
        return peer.isMember(of: adminGID)
    }

    /// The group's id, nil when no such group exists.
    public func groupID() -> UInt32? {
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
    public var refusal: String {
        "only root and members of the group \(adminGroup) may change apsiod's settings"
    }
}
