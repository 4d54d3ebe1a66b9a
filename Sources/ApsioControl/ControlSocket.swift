#if canImport(Glibc)
internal import Glibc
#endif
public import ApsioPOSIX
internal import ApsioCore

/// A connected unix stream socket of the control protocol, non-blocking, read as lines and
/// written whole, each wait bounded. Used by the server for each peer and by `apsioctl`.
///
/// One task reads and one task writes at a time (a `watch` does both at once), hence
/// `@unchecked Sendable`: the read buffer is touched only by the reader.
public final class ControlSocket: @unchecked Sendable {
    public let fd: OwnedFileDescriptor
    private var framer = LineFramer()

    /// Takes a socket opened close-on-exec; makes it non-blocking.
    public init(taking fd: OwnedFileDescriptor) throws(SystemError) {
        self.fd = fd
        try fd.setNonBlocking()
    }

    public enum ReadOutcome: Sendable, Equatable {
        case line([UInt8])
        /// The peer closed (or reset) the connection.
        case closed
        case timedOut
        /// No newline within `maxBytes`: a line too long to be one of ours.
        case tooLong
    }

    /// The next line without its newline, waiting at most `timeout` (nil: forever) for more bytes.
    public func readLine(maxBytes: Int, timeout: Duration?) async throws(CancellationError) -> ReadOutcome {
        let clock = ContinuousClock()
        let deadline = timeout.map { clock.now + $0 }
        while true {
            let room: Int
            switch framer.next(maxBytes: maxBytes) {
            case .line(let line): return .line(line)
            case .tooLong: return .tooLong
            case .needMore(let more): room = more
            }
            var chunk = [UInt8](repeating: 0, count: room)
            let count = chunk.withUnsafeMutableBytes { recv(fd.rawValue, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                framer.append(chunk[..<count])
                continue
            }
            if count == 0 { return .closed }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK:
                var left: Duration?
                if let deadline {
                    left = deadline - clock.now
                    if left! <= .zero { return .timedOut }
                }
                if try await Readiness.wait(fd.rawValue, for: .readable, timeout: left) == .timedOut { return .timedOut }
            default:
                return .closed
            }
        }
    }

    /// Whether the peer has closed its end; bytes it sends meanwhile are read and dropped (a
    /// `watch` takes no more requests). Returns only when it closed.
    public func waitForClose() async throws(CancellationError) {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd.rawValue, $0.baseAddress, $0.count, 0) }
            if count == 0 { return }
            if count > 0 { continue }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: _ = try await Readiness.wait(fd.rawValue, for: .readable)
            default: return
            }
        }
    }

    public enum WriteError: Error, Sendable, Equatable {
        /// The peer took nothing for the whole timeout: a reader too slow to keep.
        case timedOut
        case closed(SystemError)
        case cancelled
    }

    /// Writes all of `bytes`, waiting at most `timeout` each time the socket is full.
    public func write(_ bytes: [UInt8], timeout: Duration) async throws(WriteError) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes {
                send(fd.rawValue, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL))
            }
            if count >= 0 {
                sent += count
                continue
            }
            let code = errno
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK:
                let outcome: Readiness.Outcome
                do {
                    outcome = try await Readiness.wait(fd.rawValue, for: .writable, timeout: timeout)
                } catch {
                    throw .cancelled
                }
                if outcome == .timedOut { throw .timedOut }
            default:
                throw .closed(SystemError("send", errno: code))
            }
        }
    }

    public func close() {
        fd.close()
    }
}
