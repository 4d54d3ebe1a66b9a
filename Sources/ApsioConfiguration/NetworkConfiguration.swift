package import ApsioNet

/// `[Network]` of apsiod.conf: the proxy https requests go through, when the daemon's environment
/// (`HTTPS_PROXY`, `NO_PROXY`) is not what the operator wants, or holds no credentials.
package struct NetworkConfiguration: Sendable, Equatable {
    package enum ProxyChoice: Sendable, Equatable {
        /// No `Proxy=` (or an empty one): `HTTPS_PROXY` or `ALL_PROXY` of the environment, if any.
        case environment
        /// `Proxy=none`: always direct, whatever the environment says.
        case direct
        case proxy(HTTPProxy)
    }

    package var proxy: ProxyChoice
    /// `NoProxy=`: instead of the environment's `NO_PROXY` when set.
    package var noProxy: NoProxy?
    /// `ProxyCredentialsFile=`, read: `user:password` for the proxy, whichever names it.
    package var credentials: ProxyCredentials?

    package init(proxy: ProxyChoice = .environment, noProxy: NoProxy? = nil, credentials: ProxyCredentials? = nil) {
        self.proxy = proxy
        self.noProxy = noProxy
        self.credentials = credentials
    }

    /// The settings the daemon's clients use: these keys over the environment's.
    package func settings(over environment: ProxySettings) -> ProxySettings {
        var https: HTTPProxy?
        switch proxy {
        case .environment: https = environment.https
        case .direct: https = nil
        case .proxy(let named): https = named
        }
        if let credentials, https != nil { https?.credentials = credentials }
        return ProxySettings(https: https, noProxy: noProxy ?? environment.noProxy)
    }
}
