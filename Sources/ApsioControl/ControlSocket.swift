package import ApsioPOSIX
internal import ApsioCore

/// A connected unix stream socket of the control protocol, non-blocking, read as lines and
/// written whole, each wait bounded. Used by the server for each peer and by `apsioctl`.
///
/// One task reads and one task writes at a time (a `watch` does both at once), hence
/// `@unchecked Sendable`: the read buffer is touched only by the reader.
package final class ControlSocket: @unchecked Sendable {
    package let fd: OwnedFileDescriptor
    private var framer = LineFramer()

    /// Takes a socket opened close-on-exec; makes it non-blocking.
    package init(taking fd: OwnedFileDescriptor) throws(SystemError) {
        self.fd = fd
        try fd.setNonBlocking()
    }

    package enum ReadOutcome: Sendable, Equatable {
        case line([UInt8])
        /// The peer closed (or reset) the connection.
        case closed
        case timedOut
        /// No newline within `maxBytes`: a line too long to be one of ours.
        case tooLong
    }

    /// The next line without its newline, waiting at most `timeout` (nil: forever) for more bytes.
    package func readLine(maxBytes: Int, timeout: Duration?) async throws(CancellationError) -> ReadOutcome {
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
            // An error (a reset) ends the connection as its close does.
            let received: Int?
            do throws(SystemError) {
                received = try fd.receive(into: &chunk)
            } catch {
                return .closed
            }
            if let count = received {
                if count == 0 { return .closed }
                framer.append(chunk[..<count])
                continue
            }
            var left: Duration?
            if let deadline {
                left = deadline - clock.now
                if left! <= .zero { return .timedOut }
            }
            if try await Readiness.wait(fd.rawValue, for: .readable, timeout: left) == .timedOut { return .timedOut }
        }
    }

    /// Whether the peer has closed its end; bytes it sends meanwhile are read and dropped (a
    /// `watch` takes no more requests). Returns only when it closed.
    package func waitForClose() async throws(CancellationError) {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let received: Int?
            do throws(SystemError) {
                received = try fd.receive(into: &chunk)
            } catch {
                return
            }
            if received == 0 { return }
            if received == nil { _ = try await Readiness.wait(fd.rawValue, for: .readable) }
        }
    }

    package enum WriteError: Error, Sendable, Equatable {
        /// The peer took nothing for the whole timeout: a reader too slow to keep.
        case timedOut
        case closed(SystemError)
        case cancelled
    }

    /// Writes all of `bytes`, waiting at most `timeout` each time the socket is full.
    package func write(_ bytes: [UInt8], timeout: Duration) async throws(WriteError) {
        var sent = 0
        while sent < bytes.count {
            let taken: Int?
            do throws(SystemError) {
                taken = try fd.send(bytes, from: sent)
            } catch {
                throw .closed(error)
            }
            if let taken {
                sent += taken
                continue
            }
            let outcome: Readiness.Outcome
            do {
                outcome = try await Readiness.wait(fd.rawValue, for: .writable, timeout: timeout)
            } catch {
                throw .cancelled
            }
            if outcome == .timedOut { throw .timedOut }
        }
    }

    package func close() {
        fd.close()
    }
}
