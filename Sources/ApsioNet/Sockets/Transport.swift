#if canImport(Glibc)
internal import Glibc
#endif
package import ApsioPOSIX

/// A connected stream socket, plain or with TLS over it, read and written with deadlines. Waiting
/// goes through `Readiness.wait`, so a cancelled task stops waiting at once and the caller closes
/// the socket; the peer then sees the connection end.
///
/// One task uses a transport at a time (the client hands it from the pool to one request, the
/// server's connection loop to its disconnect watcher and back), hence `@unchecked Sendable`.
package final class Transport: @unchecked Sendable {
    package let fd: OwnedFileDescriptor
    private var tls: TLSSession?

    init(fd: OwnedFileDescriptor) {
        self.fd = fd
    }

    var isTLS: Bool { tls != nil }

    package func close() {
        tls = nil
        fd.close()
    }

    // MARK: Connecting

    /// Connects to the first address that accepts, each in turn, within the deadline.
    static func connect(to addresses: [SocketAddress], deadline: ContinuousClock.Instant) async throws -> Transport {
        var lastError = TransportError.system("no address to connect to")
        for address in addresses {
            let transport: Transport
            var failure: Int32 = 0
            do throws(SystemError) {
                transport = Transport(fd: try OwnedFileDescriptor.socket(
                    family: address.family, type: Int32(SOCK_STREAM.rawValue), nonBlocking: true))
            } catch {
                lastError = .system(error.description)
                continue
            }
            try? transport.fd.setOption(level: Int32(IPPROTO_TCP), name: TCP_NODELAY, to: 1)
            let started = address.withSockaddr { raw, length in
                Result { () throws(SystemError) in try transport.fd.connect(raw, length: length, name: "connect") }
            }
            switch started {
            case .success(true): break
            case .success(false):
                try await transport.wait(for: .writable, until: deadline)
                failure = transport.fd.pendingError()
            case .failure(let error): failure = error.errno
            }
            if failure == 0 { return transport }
            transport.close()
            lastError = failure == ECONNREFUSED ? .reset("ECONNREFUSED") : .system(String(cString: strerror(failure)))
        }
        throw lastError
    }

    /// Resolves `host` (a name or an address literal) and connects to the first address that
    /// accepts, within the deadline.
    package static func connect(host: String, port: Int, deadline: ContinuousClock.Instant) async throws -> Transport {
        let addresses = try await DNSResolver.resolve(host: host, port: port, timeout: max(deadline - .now, .zero))
        return try await connect(to: addresses, deadline: deadline)
    }

    /// Connects to a unix socket. A local socket accepts at once or not at all: no deadline.
    package static func connect(unix address: UnixSocketAddress) throws -> Transport {
        let transport: Transport
        do throws(SystemError) {
            transport = Transport(fd: try OwnedFileDescriptor.socket(family: AF_UNIX, type: Int32(SOCK_STREAM.rawValue), nonBlocking: true))
            _ = try transport.fd.connect(address)
        } catch {
            throw error.errno == ECONNREFUSED || error.errno == ENOENT
                ? TransportError.reset("\(address.path): \(error.reason)") : TransportError.system(error.description)
        }
        return transport
    }

    /// Shakes hands as the client or the server of `session`, within the deadline.
    func startTLS(_ session: TLSSession, deadline: ContinuousClock.Instant) async throws {
        tls = session
        while true {
            switch session.handshake() {
            case .done: return
            case .wantRead: try await wait(for: .readable, until: deadline)
            case .wantWrite: try await wait(for: .writable, until: deadline)
            case .endOfStream: throw TransportError.tls(reason: "the peer closed the connection during the handshake", verification: nil)
            case .failed(let error): throw error
            }
        }
    }

    // MARK: Reading and writing

    /// Reads what is there, up to `maxCount` bytes, waiting until the deadline for at least one.
    /// An empty result is the end of the stream.
    package func read(maxCount: Int = 16 * 1024, until deadline: ContinuousClock.Instant) async throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maxCount)
        while true {
            let step: TLSSession.Step = buffer.withUnsafeMutableBytes { raw in
                if let tls { return tls.read(into: raw) }
                switch Result(catching: { () throws(SystemError) in try fd.receive(into: raw) }) {
                case .success(nil): return .wantRead
                case .success(0): return .endOfStream
                case .success(let count?): return .done(count)
                case .failure(let error): return Self.classify(error)
                }
            }
            switch step {
            case .done(let count):
                buffer.removeSubrange(count...)
                return buffer
            case .endOfStream: return []
            case .wantRead: try await wait(for: .readable, until: deadline)
            case .wantWrite: try await wait(for: .writable, until: deadline)
            case .failed(let error): throw error
            }
        }
    }

    package func write(_ bytes: [UInt8], until deadline: ContinuousClock.Instant) async throws {
        var offset = 0
        while offset < bytes.count {
            let step: TLSSession.Step = bytes.withUnsafeBytes { raw in
                let rest = UnsafeRawBufferPointer(rebasing: raw[offset...])
                if let tls { return tls.write(rest) }
                switch Result(catching: { () throws(SystemError) in try fd.send(rest) }) {
                case .success(nil): return .wantWrite
                case .success(let count?): return .done(count)
                case .failure(let error): return Self.classify(error)
                }
            }
            switch step {
            case .done(let count): offset += count
            case .endOfStream: throw TransportError.reset("the peer closed the connection")
            case .wantRead: try await wait(for: .readable, until: deadline)
            case .wantWrite: try await wait(for: .writable, until: deadline)
            case .failed(let error): throw error
            }
        }
    }

    /// Reads what is there now, up to `maxCount` bytes, without waiting: nil when nothing is,
    /// empty at the end of the stream. Plain sockets only (a TLS record may need a write first).
    package func readWithoutWaiting(maxCount: Int) throws -> [UInt8]? {
        precondition(tls == nil, "readWithoutWaiting is for plain sockets")
        var buffer = [UInt8](repeating: 0, count: maxCount)
        let count: Int? = try buffer.withUnsafeMutableBytes { raw throws(TransportError) in
            do throws(SystemError) {
                return try fd.receive(into: raw)
            } catch {
                if case .failed(let failure) = Self.classify(error) { throw failure }
                throw TransportError.system(error.description)
            }
        }
        guard let count else { return nil }
        buffer.removeSubrange(count...)
        return buffer
    }

    /// Writes what the socket takes now, without waiting: the number of bytes written (0 when its
    /// buffer is full, or the connection is TLS, whose writes go through `write`). Lets a caller
    /// whose bytes nearly always fit skip a task and the reactor.
    package func writeWithoutWaiting(_ bytes: [UInt8]) throws -> Int {
        guard tls == nil else { return 0 }
        var offset = 0
        while offset < bytes.count {
            let sent: Int? = try bytes.withUnsafeBytes { raw throws(TransportError) in
                do throws(SystemError) {
                    return try fd.send(UnsafeRawBufferPointer(rebasing: raw[offset...]))
                } catch {
                    if case .failed(let failure) = Self.classify(error) { throw failure }
                    throw TransportError.system(error.description)
                }
            }
            guard let sent else { break }
            offset += sent
        }
        return offset
    }

    /// Whether an idle connection has been closed by the peer, or has bytes nobody asked for:
    /// either way it is not fit to carry a request. Does not block.
    var isUnfitForReuse: Bool {
        guard !fd.isClosed else { return true }
        return fd.isReadableNow
    }

    private static func classify(_ error: SystemError) -> TLSSession.Step {
        switch error.errno {
        case ECONNRESET, EPIPE: .failed(.reset(error.reason))
        default: .failed(.system(error.description))
        }
    }

    func wait(for event: Readiness.Event, until deadline: ContinuousClock.Instant) async throws {
        let remaining = deadline - ContinuousClock.now
        guard remaining > .zero else { throw TransportError.timedOut }
        if try await Readiness.wait(fd.rawValue, for: event, timeout: remaining) == .timedOut {
            throw TransportError.timedOut
        }
    }
}
