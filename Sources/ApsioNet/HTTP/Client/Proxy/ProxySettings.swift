/// Which requests go through a proxy, and which one: the daemon's environment (`HTTPS_PROXY`,
/// `NO_PROXY`, from the unit's `Environment=` or a drop-in) unless apsiod.conf's `[Network]`
/// section says otherwise.
///
/// Only https goes through a proxy. Plain http exists only to loopback (spec 16.4) and loopback
/// is always reached directly, whatever the lists say: a proxy is a hop off the machine, and the
/// key and token of a plain http request must not take it. `HTTP_PROXY` therefore never applies.
package struct ProxySettings: Sendable, Equatable {
    package var https: HTTPProxy?
    package var noProxy: NoProxy

    package static let direct = ProxySettings(https: nil, noProxy: .none)

    package init(https: HTTPProxy?, noProxy: NoProxy) {
        self.https = https
        self.noProxy = noProxy
    }

    /// The proxy for a request to `endpoint`, nil to connect directly.
    package func proxy(for endpoint: HTTPEndpoint) -> HTTPProxy? {
        guard let https, endpoint.scheme == .https, !endpoint.isLoopbackAddress, !noProxy.bypasses(endpoint.host) else {
            return nil
        }
        return https
    }

    /// The variables curl reads, the lowercase spelling first: `https_proxy`, then `all_proxy`
    /// for every scheme, and `no_proxy`. What cannot be read is returned to be said once; a proxy
    /// that cannot be read is not used (the requests then fail where they would have without it,
    /// and the problem says why).
    package static func environment(_ variables: [String: String]) -> (settings: ProxySettings, problems: [String]) {
        func value(_ name: String) -> (name: String, value: String)? {
            for spelling in [name.lowercased(), name.uppercased()] {
                if let value = variables[spelling], !value.isEmpty { return (spelling, value) }
            }
            return nil
        }
        var problems: [String] = []
        var proxy: HTTPProxy?
        if let named = value("HTTPS_PROXY") ?? value("ALL_PROXY") {
            do {
                proxy = try HTTPProxy(url: named.value)
            } catch {
                problems.append("\(named.name) is not used: \(error)")
            }
        }
        let noProxy = NoProxy(value("NO_PROXY")?.value ?? "")
        if !noProxy.ignored.isEmpty {
            problems.append("NO_PROXY entries that are not a host, a domain, an address or a network are ignored: \(noProxy.ignored.joined(separator: ", "))")
        }
        return (ProxySettings(https: proxy, noProxy: noProxy), problems)
    }

    /// The variables `environment(_:)` reads, for a caller that passes only those on.
    package static let variableNames = ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"]
}

extension HTTPEndpoint {
    /// `localhost` or an address of 127.0.0.0/8 or ::1: this machine, never behind a proxy.
    var isLoopbackAddress: Bool {
        if isLoopback { return true }
        return NoProxy.loopback.bypasses(host)
    }
}

extension NoProxy {
    static let loopback = NoProxy("127.0.0.0/8,::1")
}
