/// One entry of the policy's `live.testers` (16.1). It names no install and publishes no proof:
/// only the hash of the proof.
package struct TesterEntry: Sendable, Equatable {
    package let id: String
    /// Lowercase hex SHA-256 of the entry's 64-character proof.
    package let match: String
    /// Unix seconds.
    package let expiresAt: Int64

    package init(id: String, match: String, expiresAt: Int64) {
        self.id = id
        self.match = match
        self.expiresAt = expiresAt
    }

    /// An entry is ignored once its `expires_at` has passed: it still counts at that very second,
    /// and no longer one second later. Device and backend apply the same rule.
    package func isExpired(atUnixSeconds now: Int64) -> Bool {
        now > expiresAt
    }
}
