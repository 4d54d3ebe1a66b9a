/// Every resource a peer controls, bounded.
package struct ControlServerLimits: Sendable, Equatable {
    /// Connections served at once, the operators' reserve included. A `watch` holds one.
    package var maxConnections = 64
    /// Of those, the places only root and the admin group may take: another user never holds
    /// them, so the operator's `allow-live off` always finds one (`ControlAdmission`).
    package var reservedForOperators = 8
    /// Connections one user who is not an operator may hold; one more of theirs takes the place of
    /// their own oldest held connection.
    package var maxConnectionsPerUser = 8
    /// Connections let go for a newcomer and not yet closed (they close at once; this bounds a
    /// burst of newcomers faster than that).
    package var maxLettingGo = 16
    /// A connection that sends no request for this long is closed (not a `watch`).
    package var idleTimeout: Duration = .seconds(60)
    /// A peer that takes none of an answer or event for this long is dropped: a stopped
    /// `apsioctl watch` never holds the daemon up.
    package var writeTimeout: Duration = .seconds(10)
    /// Event bytes waiting for a slow watcher; past this the watcher is dropped.
    package var maxPendingWatchBytes = 256 * 1024

    package init() {}

    package static let `default` = ControlServerLimits()

    /// The admission rule these limits make.
    package var admission: ControlAdmission.Limits {
        ControlAdmission.Limits(
            total: maxConnections, reservedForOperators: min(reservedForOperators, maxConnections),
            perUser: maxConnectionsPerUser, maxLettingGo: maxLettingGo)
    }
}
