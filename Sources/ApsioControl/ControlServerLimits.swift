/// Every resource a peer of the control socket controls, bounded.
package struct ControlServerLimits: Sendable, Equatable {
    /// Connections served at once; one more is told `busy` and closed. A `watch` holds one.
    package var maxConnections = 64
    /// A connection that sends no request for this long is closed (not a `watch`).
    package var idleTimeout: Duration = .seconds(60)
    /// A peer that takes none of an answer or event for this long is dropped: a stopped
    /// `apsioctl watch` never holds the daemon up.
    package var writeTimeout: Duration = .seconds(10)
    /// Event bytes waiting for a slow watcher; past this the watcher is dropped.
    package var maxPendingWatchBytes = 256 * 1024

    package init() {}

    package static let `default` = ControlServerLimits()
}
