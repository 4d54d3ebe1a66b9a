extension HTTPClient {
    package struct Options: Sendable {
        /// A PEM file of CA certificates to trust instead of the system store (a private CA).
        /// Verification itself is never optional.
        package var caFile: String?
        package var limits: HTTPLimits
        /// Idle keep-alive connections kept per origin.
        package var maxIdleConnectionsPerOrigin: Int
        /// How long an idle connection is kept; below common server keep-alive timeouts, so that
        /// the server rarely closes one just as it is reused.
        package var idleTimeout: Duration

        package init(
            caFile: String? = nil, limits: HTTPLimits = .default, maxIdleConnectionsPerOrigin: Int = 4,
            idleTimeout: Duration = .seconds(4)
        ) {
            self.caFile = caFile
            self.limits = limits
            self.maxIdleConnectionsPerOrigin = maxIdleConnectionsPerOrigin
            self.idleTimeout = idleTimeout
        }
    }
}
