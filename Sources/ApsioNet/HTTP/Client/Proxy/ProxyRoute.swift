import Synchronization

/// The proxy settings every HTTP client of the daemon reads at each new connection, changed in
/// one place when apsiod.conf is read again: the clients of the apps are made at different times,
/// and none keeps a copy that a reload would miss. A connection made under other settings is not
/// reused (`ConnectionPool.Key` names the proxy it went through).
package final class ProxyRoute: Sendable {
    private let state: Mutex<ProxySettings>

    package init(_ settings: ProxySettings = .direct) {
        state = Mutex(settings)
    }

    package var settings: ProxySettings { state.withLock { $0 } }

    /// Whether anything changed.
    @discardableResult
    package func update(_ settings: ProxySettings) -> Bool {
        state.withLock { current in
            guard current != settings else { return false }
            current = settings
            return true
        }
    }
}
