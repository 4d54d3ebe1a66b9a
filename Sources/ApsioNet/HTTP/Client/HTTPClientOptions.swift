extension HTTPClient {
    package struct ClientIdentity: Sendable, Equatable {
        package var certificateFile: String
        package var keyFile: String

        package init(certificateFile: String, keyFile: String) {
            self.certificateFile = certificateFile
            self.keyFile = keyFile
        }
    }

    package struct Options: Sendable {
        /// A PEM file of CA certificates to trust instead of the system store (a private CA).
        /// Verification itself is never optional.
        package var caFile: String?
        /// A client certificate chain and its private key, both PEM files, presented to a server
        /// that asks for one (mutual TLS). OpenSSL reads the key; it never passes through apsiod.
        package var clientIdentity: ClientIdentity?
        /// The proxy https requests go through (read at each new connection); nil: always direct.
        package var proxy: ProxyRoute?
        package var limits: HTTPLimits
        /// Idle keep-alive connections kept per origin.
        package var maxIdleConnectionsPerOrigin: Int
        /// How long an idle connection is kept; below common server keep-alive timeouts, so that
        /// the server rarely closes one just as it is reused.
        package var idleTimeout: Duration

        package init(
            caFile: String? = nil, clientIdentity: ClientIdentity? = nil, proxy: ProxyRoute? = nil, limits: HTTPLimits = .default,
            maxIdleConnectionsPerOrigin: Int = 4, idleTimeout: Duration = .seconds(4)
        ) {
            self.caFile = caFile
            self.clientIdentity = clientIdentity
            self.proxy = proxy
            self.limits = limits
            self.maxIdleConnectionsPerOrigin = maxIdleConnectionsPerOrigin
            self.idleTimeout = idleTimeout
        }
    }
}
