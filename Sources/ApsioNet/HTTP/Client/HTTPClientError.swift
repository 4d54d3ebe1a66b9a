/// Why a request got no response. Each message names what failed and what to look at; none
/// carries a header value or a body, so none can leak a key or a token into a log.
///
/// Cancellation is not one of these: a cancelled `send` throws `CancellationError`.
package enum HTTPClientError: Error, Equatable, Sendable, CustomStringConvertible {
    package enum Phase: String, Sendable {
        case connect = "connecting (DNS and TCP)"
        case tlsHandshake = "the TLS handshake"
        case exchange = "the exchange"
        case proxyTunnel = "the proxy's CONNECT tunnel"
    }

    /// The endpoint is not one the client will talk to (a malformed base URL, a bad port).
    case invalidEndpoint(String)
    /// Plain `http://` to a host that is not loopback (spec 16.4).
    case plainHTTPRefused(host: String)
    /// Plain `http://` to a loopback name (`localhost`) that resolved to an address off this
    /// machine: nothing was connected to (spec 16.4).
    case plainHTTPResolvedOffLoopback(host: String, address: String)
    /// The request itself is not sendable: a bad method, path or header.
    case invalidRequest(String)
    case dnsFailure(host: String, reason: String)
    case connectionRefused(host: String, port: Int)
    /// Any other failed connect (no route, network unreachable).
    case connectFailed(host: String, port: Int, reason: String)
    case timedOut(Phase, after: Duration)
    /// The server's certificate did not verify: expired, untrusted, or for another name.
    case tlsVerificationFailed(host: String, reason: String)
    /// The handshake failed for another reason (no common protocol or cipher, a TLS alert).
    case tlsHandshakeFailed(host: String, reason: String)
    /// The configured CA file could not be loaded.
    case tlsConfiguration(String)
    /// The connection closed before any byte of a response.
    case connectionClosed
    /// The connection failed while sending or receiving (reset, broken pipe).
    case connectionFailed(reason: String)
    case malformedResponse(HTTPParseError)
    /// The body, as sent or once decompressed, is larger than the limit.
    case bodyTooLarge(limit: Int)
    case unsupportedContentEncoding(String)
    case corruptGzipBody(GzipError)
    /// The proxy (`host:port`, never its credentials) could not be resolved or connected to.
    case proxyUnreachable(proxy: String, reason: String)
    /// The proxy answered CONNECT with something else than 2xx: a 407 when it wants credentials or
    /// refused them, a 403 for a destination it does not allow, a 502 when the backend is down.
    case proxyRefusedTunnel(proxy: String, target: String, status: Int, reason: String, sentCredentials: Bool)
    /// The proxy's answer to CONNECT was not HTTP, or came with bytes after it.
    case proxyMalformedAnswer(proxy: String, reason: String)

    package var description: String {
        switch self {
        case .invalidEndpoint(let why): "invalid endpoint: \(why)"
        case .plainHTTPRefused(let host):
            "plain http:// is only allowed to 127.0.0.1, [::1] and localhost, not to \(host): use https://"
        case .plainHTTPResolvedOffLoopback(let host, let address):
            "\(host) resolves to \(address), which is not a loopback address; plain http:// goes only to loopback (check /etc/hosts)"
        case .invalidRequest(let why): "invalid request: \(why)"
        case .dnsFailure(let host, let reason): "cannot resolve \(host): \(reason) (check the host name and DNS)"
        case .connectionRefused(let host, let port):
            "connection refused by \(host) port \(port) (is the server running and listening there?)"
        case .connectFailed(let host, let port, let reason): "cannot connect to \(host) port \(port): \(reason)"
        case .timedOut(let phase, let after): "timed out after \(after) during \(phase.rawValue)"
        case .tlsVerificationFailed(let host, let reason):
            "the certificate of \(host) did not verify: \(reason) (check the server's certificate chain and name, or the CA file)"
        case .tlsHandshakeFailed(let host, let reason): "TLS handshake with \(host) failed: \(reason)"
        case .tlsConfiguration(let why): "TLS configuration error: \(why)"
        case .connectionClosed: "the server closed the connection without answering"
        case .connectionFailed(let reason): "the connection failed: \(reason)"
        case .malformedResponse(let error): "malformed response: \(error)"
        case .bodyTooLarge(let limit): "the response body is larger than the limit of \(limit) bytes"
        case .unsupportedContentEncoding(let coding):
            "the response uses Content-Encoding \"\(coding)\", and only gzip is accepted"
        case .corruptGzipBody(let error): "the response body is not valid gzip: \(error)"
        case .proxyUnreachable(let proxy, let reason):
            "cannot reach the proxy \(proxy): \(reason) (is it running? it is named by HTTPS_PROXY or Proxy= in apsiod.conf)"
        case .proxyRefusedTunnel(let proxy, let target, let status, let reason, let sentCredentials):
            "the proxy \(proxy) refused a tunnel to \(target): \(status) \(reason)"
                + (status == 407
                    ? (sentCredentials ? " (it refused the credentials of ProxyCredentialsFile=)" : " (it asks for credentials: ProxyCredentialsFile= in apsiod.conf)")
                    : "")
        case .proxyMalformedAnswer(let proxy, let reason): "the proxy \(proxy) did not answer CONNECT as HTTP: \(reason)"
        }
    }
}
