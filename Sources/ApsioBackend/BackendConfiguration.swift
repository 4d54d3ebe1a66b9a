package import ApsioNet
package import ApsioRedis

/// How the backend runs: where it listens, what it serves, who may sign in.
package struct BackendConfiguration: Sendable {
    package var listenHost: String
    package var listenPort: Int
    package var hub: HubConfiguration
    package var accountsPath: String?
    package var tls: HTTPServer.TLSFiles?
    /// Local development: allows a loopback `http://` live origin when listening on loopback.
    package var development: Bool
    /// The fleet's shared state (docs/fleet-backend.md); nil runs the in-memory hub, one instance.
    package var redis: RedisSeeds?
    /// Connections served at once: every live device holds two (a `next` and a post), every
    /// viewer one stream poll.
    package var maxConnections: Int

    /// How long the audit is kept (docs/audit.md); nil keeps the backend's default, 30 days.
    package var auditRetention: Duration?

    package static let defaultMaxConnections = 256

    package init(
        listenHost: String = "127.0.0.1", listenPort: Int = 8787, hub: HubConfiguration, accountsPath: String? = nil,
        tls: HTTPServer.TLSFiles? = nil, development: Bool = false, redis: RedisSeeds? = nil,
        maxConnections: Int = BackendConfiguration.defaultMaxConnections
    ) {
        self.redis = redis
        self.maxConnections = maxConnections
        self.listenHost = listenHost
        self.listenPort = listenPort
        self.hub = hub
        self.accountsPath = accountsPath
        self.tls = tls
        self.development = development
    }

    package static let loopbackListenHosts: Set<String> = ["127.0.0.1", "::1"]

    /// The rule of 16.7: only an `https://` origin is ever published, except a loopback
    /// `http://` one for local development, and then only when the backend itself listens on
    /// loopback, so no device elsewhere can be pointed at plain HTTP.
    package func validate() throws(BackendConfigurationError) {
        guard hub.origin.scheme == .http else { return }
        guard development else {
            throw .plainOriginRefused(origin: hub.origin.text, reason: "it is not https:// and --dev was not given")
        }
        guard Self.loopbackListenHosts.contains(listenHost) else {
            throw .plainOriginRefused(origin: hub.origin.text, reason: "--dev listens on loopback only, not \(listenHost)")
        }
    }
}
