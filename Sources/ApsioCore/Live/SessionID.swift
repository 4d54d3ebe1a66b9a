/// `session.id` of a Linux app: the unit's InvocationID (LINUX-PROFILE §3), written as a UUID.
package enum SessionID {
    /// journald and D-Bus give the id as 32 hex characters (or 16 raw bytes, hexed by the caller);
    /// the spec's session ids are UUID-shaped, 8-4-4-4-12 lowercase. `nil` for anything else, and
    /// for the all-zero id systemd uses for "no invocation".
    package static func fromInvocationID(_ hex: String) -> String? {
        let lower = hex.lowercased()
        guard Hex.isLowercase(lower, length: 32), lower != String(repeating: "0", count: 32) else { return nil }
        let chars = Array(lower)
        let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(chars[$0]) }
        return groups.joined(separator: "-")
    }
}
