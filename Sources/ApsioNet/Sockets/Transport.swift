#if canImport(Glibc)
internal import Glibc
#endif
import ApsioPOSIX

/// A connected stream socket, plain or with TLS over it, read and written with deadlines. Waiting
/// goes through `Readiness.wait`, so a cancelled task stops waiting at once and the caller closes
/// the socket; the peer then sees the connection end.
///
/// One task uses a transport at a time (the client hands it from the pool to one request, the
/// server's connection loop to its disconnect watcher and back), hence `@unchecked Sendable`.
final class Transport: @unchecked Sendable {
    let fd: OwnedFileDescriptor
    private var tls: TLSSession?

    init(fd: OwnedFileDescriptor) {
        self.fd = fd
    }

    var isTLS: Bool { tls != nil }

    func close() {
        tls = nil
        fd.close()
    }

    // MARK: Connecting

    /// Connects to the first address that accepts, each in turn, within the deadline.
    static func connect(to addresses: [SocketAddress], deadline: ContinuousClock.Instant) async throws -> Transport {
        var lastError = TransportError.system("no address to connect to")
        for address in addresses {
            let raw = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard raw >= 0 else {
                lastError = .system(SystemError.last("socket").description)
                continue
            }
            let transport = Transport(fd: OwnedFileDescriptor(taking: raw))
            var noDelay: Int32 = 1
            _ = setsockopt(raw, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
            let result = address.withSockaddr { Glibc.connect(raw, $0, $1) }
            var failure: Int32 = result == 0 ? 0 : errno
            if failure == EINPROGRESS || failure == EINTR {
                try await transport.wait(for: .writable, until: deadline)
                var length = socklen_t(MemoryLayout<Int32>.size)
                failure = 0
                if getsockopt(raw, SOL_SOCKET, SO_ERROR, &failure, &length) != 0 { failure = errno }
            }
            if failure == 0 { return transport }
            transport.close()
            lastError = failure == ECONNREFUSED ? .reset("ECONNREFUSED") : .system(String(cString: strerror(failure)))
        }
        throw lastError
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
    func read(maxCount: Int = 16 * 1024, until deadline: ContinuousClock.Instant) async throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maxCount)
        while true {
            let step: TLSSession.Step = buffer.withUnsafeMutableBytes { raw in
                if let tls { return tls.read(into: raw) }
                let count = recv(fd.rawValue, raw.baseAddress, raw.count, 0)
                if count > 0 { return .done(count) }
                if count == 0 { return .endOfStream }
                return Self.classifyErrno(errno, waiting: .wantRead, call: "recv")
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

    func write(_ bytes: [UInt8], until deadline: ContinuousClock.Instant) async throws {
        var offset = 0
        while offset < bytes.count {
            let step: TLSSession.Step = bytes.withUnsafeBytes { raw in
                let rest = UnsafeRawBufferPointer(rebasing: raw[offset...])
                if let tls { return tls.write(rest) }
                let count = send(fd.rawValue, rest.baseAddress, rest.count, Int32(MSG_NOSIGNAL))
                if count >= 0 { return .done(count) }
                return Self.classifyErrno(errno, waiting: .wantWrite, call: "send")
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

    /// Whether an idle connection has been closed by the peer, or has bytes nobody asked for:
    /// either way it is not fit to carry a request. Does not block.
    var isUnfitForReuse: Bool {
        guard !fd.isClosed else { return true }
        var entry = pollfd(fd: fd.rawValue, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) != 0
    }

    private static func classifyErrno(_ number: Int32, waiting: TLSSession.Step, call: String) -> TLSSession.Step {
        switch number {
        case EAGAIN, EWOULDBLOCK, EINTR: waiting
        case ECONNRESET, EPIPE: .failed(.reset(String(cString: strerror(number))))
        default: .failed(.system(SystemError(call, errno: number).description))
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
