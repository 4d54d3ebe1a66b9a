extension HTTPClient {
    public struct Options: Sendable {
        /// A PEM file of CA certificates to trust instead of the system store (a private CA).
        /// Verification itself is never optional.
        public var caFile: String?
        public var limits: HTTPLimits
        /// Idle keep-alive connections kept per origin.
        public var maxIdleConnectionsPerOrigin: Int
        /// How long an idle connection is kept; below common server keep-alive timeouts, so that
        /// the server rarely closes one just as it is reused.
        public var idleTimeout: Duration

        public init(
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
