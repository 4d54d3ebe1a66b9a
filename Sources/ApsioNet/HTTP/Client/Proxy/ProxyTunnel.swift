import ApsioCore

/// The CONNECT exchange (RFC 9110 section 9.3.6) that turns a connection to a proxy into a tunnel
/// to the backend. Nothing of the request to the backend goes in clear: the TLS handshake with the
/// backend starts inside the tunnel once the proxy answered 2xx, and verifies the backend's name
/// as a direct connection does. The backend's host is resolved by the proxy, as a box whose only
/// way out is a proxy often cannot resolve outside names itself.
enum ProxyTunnel {
    /// `CONNECT host:port`, with the proxy's credentials when it has some.
    static func request(to endpoint: HTTPEndpoint, credentials: ProxyCredentials?) -> [UInt8] {
        let authority = authority(of: endpoint)
        var head = "CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\nUser-Agent: apsiod/\(ApsioVersion.current)\r\n"
        if let credentials { head += "Proxy-Authorization: \(credentials.authorization)\r\n" }
        head += "\r\n"
        return Array(head.utf8)
    }

    /// `host:port`, the port always written: CONNECT's request target.
    static func authority(of endpoint: HTTPEndpoint) -> String {
        endpoint.host.contains(":") ? "[\(endpoint.host)]:\(endpoint.port)" : "\(endpoint.host):\(endpoint.port)"
    }

    /// Asks `proxy`, connected over `transport`, for a tunnel to `endpoint`, and reads its answer
    /// within the limits of a response head. Returns once the tunnel is open.
    static func open(
        over transport: Transport, to endpoint: HTTPEndpoint, through proxy: HTTPProxy, limits: HTTPLimits,
        deadline: ContinuousClock.Instant
    ) async throws {
        try await transport.write(request(to: endpoint, credentials: proxy.credentials), until: deadline)
        // A 2xx to CONNECT has no body; any other answer may have one, which nobody reads: the
        // connection is closed either way.
        var parser = HTTPResponseParser(limits: limits, isResponseToHead: true)
        while parser.head == nil {
            let chunk = try await transport.read(maxCount: 4096, until: deadline)
            do {
                _ = chunk.isEmpty ? try parser.finish() : try parser.feed(chunk)
            } catch {
                throw HTTPClientError.proxyMalformedAnswer(proxy: proxy.address, reason: "\(error)")
            }
            if chunk.isEmpty && parser.head == nil {
                throw HTTPClientError.proxyMalformedAnswer(proxy: proxy.address, reason: "it closed the connection without answering")
            }
        }
        guard let head = parser.head else { return }
        guard (200..<300).contains(head.status) else {
            throw HTTPClientError.proxyRefusedTunnel(
                proxy: proxy.address, target: authority(of: endpoint),
                status: head.status, reason: String(head.reason.prefix(80)), sentCredentials: proxy.credentials != nil)
        }
        // The backend speaks first in nothing: bytes already there are the proxy's, not the
        // backend's, and would be read as the TLS handshake.
        guard parser.excessByteCount == 0 else {
            throw HTTPClientError.proxyMalformedAnswer(proxy: proxy.address, reason: "it sent bytes after its answer to CONNECT")
        }
    }
}
