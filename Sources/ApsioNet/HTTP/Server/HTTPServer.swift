#if canImport(Glibc)
internal import Glibc
#endif
package import ApsioPOSIX
import Synchronization

/// A small HTTP/1.1 server for the development backend and the tests: loopback by default, TLS
/// optional, keep-alive, handlers that may hold a request (a 25 s long poll) and are cancelled
/// when the client goes, and a limit on everything a client controls (`HTTPServerLimits`).
/// A malformed request gets its 4xx and the connection is closed; it never takes the server down.
package final class HTTPServer: Sendable {
    package struct TLSFiles: Sendable {
        package var certificateFile: String
        package var privateKeyFile: String

        package init(certificateFile: String, privateKeyFile: String) {
            self.certificateFile = certificateFile
            self.privateKeyFile = privateKeyFile
        }
    }

    private struct Running {
        let listener: OwnedFileDescriptor
        let acceptLoop: Task<Void, Never>
    }

    private let address: String
    private let requestedPort: Int
    private let tlsFiles: TLSFiles?
    private let limits: HTTPServerLimits
    private let router: HTTPRouter
    private let clock: any AgentClock
    private let running = Mutex<Running?>(nil)
    private let openConnections = Atomic<Int>(0)

    package init(
        bind address: String = "127.0.0.1", port: Int = 0, tls: TLSFiles? = nil,
        limits: HTTPServerLimits = .default, router: HTTPRouter, clock: any AgentClock = SystemAgentClock()
    ) {
        self.clock = clock
        self.address = address
        self.requestedPort = port
        self.tlsFiles = tls
        self.limits = limits
        self.router = router
    }

    /// Connections open now (the tests wait on it).
    package var connectionCount: Int { openConnections.load(ordering: .relaxed) }

    /// Binds, listens and starts accepting; returns the port (the kernel's choice for port 0).
    package func start() async throws(HTTPServerError) -> Int {
        var tls: TLSContext?
        if let tlsFiles {
            do {
                tls = try TLSContext.server(certificateFile: tlsFiles.certificateFile, privateKeyFile: tlsFiles.privateKeyFile)
            } catch {
                throw .tlsConfiguration(error.reason)
            }
        }
        let (listener, port) = try listen()
        let loop = Task { [self] in await acceptLoop(listener, tls: tls) }
        let started = running.withLock { state -> Bool in
            guard state == nil else { return false }
            state = Running(listener: listener, acceptLoop: loop)
            return true
        }
        guard started else {
            loop.cancel()
            await loop.value
            listener.close()
            throw .alreadyStarted
        }
        return port
    }

    /// Stops accepting, cancels every connection and handler, and returns once they are closed.
    package func stop() async {
        guard let state = running.withLock({ state -> Running? in
            defer { state = nil }
            return state
        }) else { return }
        state.acceptLoop.cancel()
        await state.acceptLoop.value
        state.listener.close()
    }

    private func listen() throws(HTTPServerError) -> (OwnedFileDescriptor, Int) {
        guard let bindAddress = SocketAddress.literal(address, port: UInt16(truncatingIfNeeded: requestedPort)) else {
            throw .invalidBindAddress(address)
        }
        guard (0...65535).contains(requestedPort) else { throw .invalidBindAddress("\(address) port \(requestedPort)") }

        let listener: OwnedFileDescriptor
        var actual = sockaddr_storage()
        do throws(SystemError) {
            listener = try OwnedFileDescriptor.socket(family: bindAddress.family, type: Int32(SOCK_STREAM.rawValue), nonBlocking: true)
            try? listener.setOption(level: SOL_SOCKET, name: SO_REUSEADDR, to: 1)
            try bindAddress.withSockaddr { (raw, length) throws(SystemError) in try listener.bind(raw, length: length, name: address) }
            try listener.listen(backlog: 128, name: address)
            _ = try? listener.localAddress(into: &actual)
        } catch {
            throw .bindFailed(address: self.address, port: self.requestedPort, reason: error.withoutArguments.description)
        }
        let port = withUnsafeBytes(of: &actual) { raw -> Int in
            bindAddress.family == AF_INET
                ? Int(UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port))
                : Int(UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port))
        }
        return (listener, port)
    }

    /// Accepts until cancelled; each connection runs as a child task, so cancelling this loop
    /// cancels them all and waits for them.
    private func acceptLoop(_ listener: OwnedFileDescriptor, tls: TLSContext?) async {
        // Each connection on a loop: the thread woken for a request's bytes runs it.
        await AcceptLoop.run(listener.rawValue, clock: clock, onLoops: true) { fd in
            let transport = Transport(fd: fd)
            guard openConnections.load(ordering: .relaxed) < limits.maxConnections else {
                Self.refuse(transport, speaksTLS: tls != nil)
                return nil
            }
            openConnections.add(1, ordering: .relaxed)
            let connection = HTTPServerConnection(transport: transport, tls: tls, limits: limits, router: router)
            return { [self] in
                await connection.run()
                openConnections.subtract(1, ordering: .relaxed)
            }
        }
    }

    /// One connection too many: a plain-text 503 if the socket takes it at once, then close. Over
    /// TLS a handshake would cost what the limit protects, so the connection is just closed.
    private static func refuse(_ transport: Transport, speaksTLS: Bool) {
        defer { transport.close() }
        guard !speaksTLS else { return }
        let bytes = Array("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\nRetry-After: 1\r\n\r\n".utf8)
        _ = try? transport.fd.send(bytes)
    }
}
