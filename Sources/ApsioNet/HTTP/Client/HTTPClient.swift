import ApsioCore
import Synchronization

/// A strict HTTP/1.1 client on POSIX sockets and OpenSSL, for the live channel and ingest.
///
/// It never follows a redirect (a 3xx is returned like any response), keeps no cookies and no
/// cache, speaks plain HTTP only to loopback, verifies every certificate, and bounds everything the
/// server controls with `HTTPLimits`. Connections are kept alive and reused per origin.
///
/// `send` throws `HTTPClientError`, or `CancellationError` when its task is cancelled: the socket
/// is closed at once, so the server sees the connection end. That is how the live channel stops.
package final class HTTPClient: Sendable {
    package let options: Options
    /// Made at the first https connection when the system's trust store is used: parsing its
    /// bundle costs tens of milliseconds of CPU and holds about a megabyte, which a client that
    /// only ever speaks plain HTTP to loopback (a development backend) never needs. A CA file
    /// named in `options` is loaded at once instead, so that a wrong path fails here, at start.
    private let tls: Mutex<TLSContext?>
    private let pool: ConnectionPool
    /// getaddrinfo, except in tests, which name the addresses a host resolves to themselves (as a
    /// changed /etc/hosts would) without changing the machine's.
    private let resolve: Resolve

    typealias Resolve = @Sendable (_ host: String, _ port: Int, _ timeout: Duration) async throws -> [SocketAddress]

    package convenience init(options: Options = Options()) throws(HTTPClientError) {
        try self.init(options: options, resolve: DNSResolver.resolve)
    }

    init(options: Options, resolve: @escaping Resolve) throws(HTTPClientError) {
        self.options = options
        self.resolve = resolve
        // Made at once when the options name files: a wrong one is said when the client is made.
        let named = options.caFile != nil || options.clientIdentity != nil
        tls = Mutex(named ? try Self.makeTLSContext(options) : nil)
        pool = ConnectionPool(maxPerKey: options.maxIdleConnectionsPerOrigin, idleTimeout: options.idleTimeout)
    }

    private static func makeTLSContext(_ options: Options) throws(HTTPClientError) -> TLSContext {
        do {
            return try TLSContext.client(caFile: options.caFile, identity: options.clientIdentity)
        } catch {
            throw .tlsConfiguration(error.reason)
        }
    }

    private func tlsContext() throws(HTTPClientError) -> TLSContext {
        try tls.withLock { (context: inout TLSContext?) throws(HTTPClientError) -> TLSContext in
            if let context { return context }
            let made = try Self.makeTLSContext(options)
            context = made
            return made
        }
    }

    /// Whether the client holds a TLS context yet: before its first https connection, only when a
    /// CA file was named.
    var hasTLSContext: Bool {
        tls.withLock { $0 != nil }
    }

    /// Closes every idle connection (on shutdown, or when the network changed).
    package func closeIdleConnections() {
        pool.closeAll()
    }

    deinit { pool.closeAll() }

    /// Sends `request` to `endpoint` and reads the whole response.
    ///
    /// A connection taken from the pool that turns out closed is replaced by a fresh one, once,
    /// when no byte of a response arrived and either the request was not fully written (so the
    /// server cannot have acted on it) or `request.isIdempotent`.
    package func send(_ request: HTTPRequest, to endpoint: HTTPEndpoint) async throws -> HTTPResponse {
        let timeout = request.timeout ?? options.limits.exchangeTimeout
        let deadline = ContinuousClock.now + timeout
        let bytes = try encode(request, for: endpoint)
        let proxy = options.proxy?.settings.proxy(for: endpoint)
        let key = ConnectionPool.Key(endpoint, proxy: proxy)

        var mayRetry = true
        while true {
            let reused = pool.take(key, now: .now)
            let transport: Transport
            if let reused {
                transport = reused
            } else {
                transport = try await open(endpoint, through: proxy, deadline: deadline, timeout: timeout)
            }
            var progress = Progress()
            do {
                let response = try await exchange(
                    bytes, isHead: request.method == "HEAD", over: transport, deadline: deadline, timeout: timeout,
                    progress: &progress)
                if response.reusable {
                    pool.put(transport, for: key, now: .now)
                } else {
                    transport.close()
                }
                return response.response
            } catch let error as HTTPClientError {
                transport.close()
                let safe = !progress.responseStarted && (!progress.requestWritten || request.isIdempotent)
                if reused != nil && mayRetry && safe && error.isConnectionLoss {
                    mayRetry = false
                    continue
                }
                throw error
            } catch {
                transport.close()
                throw error
            }
        }
    }

    // MARK: Connecting

    private func open(
        _ endpoint: HTTPEndpoint, through proxy: HTTPProxy?, deadline: ContinuousClock.Instant, timeout: Duration
    ) async throws -> Transport {
        let limits = options.limits
        let context = endpoint.scheme == .https ? try tlsContext() : nil
        let connectBy = min(ContinuousClock.now + limits.connectTimeout, deadline)
        let connectPhase: (HTTPClientError.Phase, Duration) =
            connectBy == deadline ? (.exchange, timeout) : (.connect, limits.connectTimeout)
        let transport: Transport
        if let proxy {
            transport = try await tunnel(to: endpoint, through: proxy, connectBy: connectBy, phase: connectPhase)
        } else {
            transport = try await connect(to: endpoint, connectBy: connectBy, phase: connectPhase)
        }
        guard let context else { return transport }

        let handshakeBy = min(ContinuousClock.now + limits.tlsHandshakeTimeout, deadline)
        do {
            let session = try TLSSession(
                clientOf: context, fd: transport.fd.rawValue, host: endpoint.host, hostIsIPLiteral: endpoint.isIPLiteral)
            try await transport.startTLS(session, deadline: handshakeBy)
            return transport
        } catch let error as TransportError {
            transport.close()
            switch error {
            case .timedOut:
                throw handshakeBy == deadline
                    ? HTTPClientError.timedOut(.exchange, after: timeout)
                    : HTTPClientError.timedOut(.tlsHandshake, after: limits.tlsHandshakeTimeout)
            case .tls(_, let verification?):
                throw HTTPClientError.tlsVerificationFailed(host: endpoint.host, reason: verification)
            case .tls(let reason, nil), .reset(let reason), .system(let reason):
                throw HTTPClientError.tlsHandshakeFailed(host: endpoint.host, reason: reason)
            }
        } catch {
            transport.close()
            throw error
        }
    }

    /// Resolves the endpoint's host and connects to it.
    private func connect(
        to endpoint: HTTPEndpoint, connectBy: ContinuousClock.Instant, phase: (HTTPClientError.Phase, Duration)
    ) async throws -> Transport {
        let addresses: [SocketAddress]
        do {
            addresses = try await resolve(endpoint.host, endpoint.port, connectBy - ContinuousClock.now)
        } catch let failure as DNSResolver.Failure {
            throw HTTPClientError.dnsFailure(host: endpoint.host, reason: failure.reason)
        } catch TransportError.timedOut {
            throw HTTPClientError.timedOut(phase.0, after: phase.1)
        }
        // Plain http carries the app key and the device token in clear text, so it must not leave
        // the machine whatever `localhost` resolves to (an address literal passes trivially).
        // https needs no such check: the key and token are encrypted, and the certificate is
        // verified for the name, which no public CA issues one for `localhost`.
        if endpoint.scheme == .http { try LoopbackAddress.requireAll(addresses, resolvedFrom: endpoint.host) }
        do {
            return try await Transport.connect(to: addresses, deadline: connectBy)
        } catch let error as TransportError {
            switch error {
            case .timedOut: throw HTTPClientError.timedOut(phase.0, after: phase.1)
            case .reset: throw HTTPClientError.connectionRefused(host: endpoint.host, port: endpoint.port)
            case .system(let reason), .tls(let reason, _):
                throw HTTPClientError.connectFailed(host: endpoint.host, port: endpoint.port, reason: reason)
            }
        }
    }

    /// Connects to the proxy and asks it for a tunnel to the endpoint (`ProxyTunnel`), within the
    /// connect timeout: the endpoint's host is resolved by the proxy. Only https is ever proxied
    /// (`ProxySettings.proxy(for:)`), so the exchange that follows is TLS with the endpoint.
    private func tunnel(
        to endpoint: HTTPEndpoint, through proxy: HTTPProxy, connectBy: ContinuousClock.Instant,
        phase: (HTTPClientError.Phase, Duration)
    ) async throws -> Transport {
        let addresses: [SocketAddress]
        do {
            addresses = try await resolve(proxy.host, proxy.port, connectBy - ContinuousClock.now)
        } catch let failure as DNSResolver.Failure {
            throw HTTPClientError.proxyUnreachable(proxy: proxy.address, reason: "cannot resolve \(proxy.host): \(failure.reason)")
        } catch TransportError.timedOut {
            throw HTTPClientError.timedOut(phase.0, after: phase.1)
        }
        let transport: Transport
        do {
            transport = try await Transport.connect(to: addresses, deadline: connectBy)
        } catch let error as TransportError {
            switch error {
            case .timedOut: throw HTTPClientError.timedOut(phase.0, after: phase.1)
            case .reset: throw HTTPClientError.proxyUnreachable(proxy: proxy.address, reason: "connection refused")
            case .system(let reason), .tls(let reason, _): throw HTTPClientError.proxyUnreachable(proxy: proxy.address, reason: reason)
            }
        }
        do {
            try await ProxyTunnel.open(over: transport, to: endpoint, through: proxy, limits: options.limits, deadline: connectBy)
            return transport
        } catch let error as TransportError {
            transport.close()
            switch error {
            case .timedOut:
                throw HTTPClientError.timedOut(phase.0 == .connect ? .proxyTunnel : phase.0, after: phase.1)
            case .reset(let reason), .system(let reason), .tls(let reason, _):
                throw HTTPClientError.proxyUnreachable(proxy: proxy.address, reason: reason)
            }
        } catch {
            transport.close()
            throw error
        }
    }

    // MARK: The exchange

    private struct Progress {
        var requestWritten = false
        var responseStarted = false
    }

    private func exchange(
        _ bytes: [UInt8], isHead: Bool, over transport: Transport, deadline: ContinuousClock.Instant,
        timeout: Duration, progress: inout Progress
    ) async throws -> (response: HTTPResponse, reusable: Bool) {
        // `timeout` is the whole exchange's, as the caller set it: the error names that, not
        // whatever was left of it once connected.
        let limits = options.limits
        do {
            try await transport.write(bytes, until: deadline)
            progress.requestWritten = true

            var parser = HTTPResponseParser(limits: limits, isResponseToHead: isHead)
            var head: HTTPResponseHead?
            var body: [UInt8] = []
            while !parser.isComplete {
                let chunk = try await transport.read(until: deadline)
                if chunk.isEmpty && !parser.hasReceivedBytes { throw HTTPClientError.connectionClosed }
                progress.responseStarted = true
                for event in chunk.isEmpty ? try parser.finish() : try parser.feed(chunk) {
                    switch event {
                    case .head(let value): head = value
                    case .body(let piece): body += piece
                    case .end: break
                    }
                }
            }
            guard let head else { throw HTTPClientError.malformedResponse(.invalidStartLine) }
            let decoded = try decode(body, headers: head.headers)
            let response = HTTPResponse(status: head.status, reason: head.reason, headers: head.headers, body: decoded)
            return (response, parser.connectionReusable)
        } catch let error as TransportError {
            switch error {
            case .timedOut: throw HTTPClientError.timedOut(.exchange, after: timeout)
            case .reset(let reason), .system(let reason), .tls(let reason, _):
                throw HTTPClientError.connectionFailed(reason: reason)
            }
        } catch let error as HTTPParseError {
            if case .bodyTooLarge(let limit) = error { throw HTTPClientError.bodyTooLarge(limit: limit) }
            throw HTTPClientError.malformedResponse(error)
        }
    }

    /// Undoes `Content-Encoding`: gzip (within the body limit) or nothing.
    private func decode(_ body: [UInt8], headers: HTTPHeaders) throws(HTTPClientError) -> [UInt8] {
        let codings = headers.tokens("Content-Encoding").filter { !HTTPHeaders.sameName($0, "identity") }
        guard !codings.isEmpty, !body.isEmpty else { return body }
        guard codings.count == 1, HTTPHeaders.sameName(codings[0], "gzip") || HTTPHeaders.sameName(codings[0], "x-gzip")
        else { throw .unsupportedContentEncoding(codings.joined(separator: ", ")) }
        do {
            return try Gzip.decompress(body, maxOutput: options.limits.maxBodyBytes)
        } catch .tooLarge(let limit) {
            throw .bodyTooLarge(limit: limit)
        } catch {
            throw .corruptGzipBody(error)
        }
    }

    /// The request as bytes, refusing anything that could split a line or contradict the framing.
    private func encode(_ request: HTTPRequest, for endpoint: HTTPEndpoint) throws(HTTPClientError) -> [UInt8] {
        guard HTTPSyntax.isToken(request.method) else { throw .invalidRequest("method \"\(request.method)\" is not a token") }
        guard request.path.hasPrefix("/"), request.path.utf8.allSatisfy(HTTPSyntax.isTargetByte) else {
            throw .invalidRequest("the path must start with / and hold only visible ASCII (percent-encode the rest)")
        }
        for (name, value) in request.headers {
            guard HTTPSyntax.isToken(name) else { throw .invalidRequest("header name \"\(name)\" is not a token") }
            guard HTTPSyntax.isFieldValue(value) else {
                throw .invalidRequest("the value of header \(name) holds a control character")
            }
            if HTTPRequest.reservedHeaders.contains(where: { HTTPHeaders.sameName($0, name) }) {
                throw .invalidRequest("header \(name) is written by the client itself")
            }
            if request.gzipBody && HTTPHeaders.sameName(name, "Content-Encoding") {
                throw .invalidRequest("Content-Encoding is set by gzipBody")
            }
        }
        var body = request.body
        if request.gzipBody {
            do { body = try Gzip.compress(body) } catch { throw .invalidRequest("cannot compress the body: \(error)") }
        }
        var head = "\(request.method) \(endpoint.basePath)\(request.path) HTTP/1.1\r\n"
        head += "Host: \(endpoint.hostField)\r\n"
        head += "User-Agent: apsiod/\(ApsioVersion.current)\r\n"
        head += "Accept-Encoding: gzip\r\n"
        head += "Connection: keep-alive\r\n"
        if request.gzipBody { head += "Content-Encoding: gzip\r\n" }
        if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(request.method) {
            head += "Content-Length: \(body.count)\r\n"
        }
        for (name, value) in request.headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + body
    }
}

extension HTTPClientError {
    /// A failure that a connection the server already closed would cause.
    var isConnectionLoss: Bool {
        switch self {
        case .connectionClosed, .connectionFailed: true
        default: false
        }
    }
}
