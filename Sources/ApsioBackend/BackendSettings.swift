package import ApsioCore
package import ApsioRedis

/// What `backend.conf` sets, each nil when the file leaves it to the command line or the default.
package struct BackendSettings: Sendable, Equatable {
    package var listenHost: String?
    package var listenPort: Int?
    package var origin: LiveOrigin?
    package var intervalSeconds: Int?
    package var accountsPath: String?
    package var tlsCertificate: String?
    package var tlsKey: String?
    /// Where the fleet's shared state lives; none keeps the hub in this process's memory.
    package var redis: RedisSeeds?
    package var maxConnections: Int?
    package var auditRetentionDays: Int?

    package init() {}
}
