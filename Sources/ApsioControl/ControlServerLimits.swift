/// Every resource a peer of the control socket controls, bounded.
public struct ControlServerLimits: Sendable, Equatable {
    /// Connections served at once; one more is told `busy` and closed. A `watch` holds one.
    public var maxConnections = 64
    /// A connection that sends no request for this long is closed (not a `watch`).
    public var idleTimeout: Duration = .seconds(60)
    /// A peer that takes none of an answer or event for this long is dropped: a stopped
    /// `apsioctl watch` never holds the daemon up.
    public var writeTimeout: Duration = .seconds(10)
    /// Event bytes waiting for a slow watcher; past this the watcher is dropped.
    public var maxPendingWatchBytes = 256 * 1024

    public init() {}

    public static let `default` = ControlServerLimits()
}
