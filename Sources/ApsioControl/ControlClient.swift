#if canImport(Glibc)
internal import Glibc
#endif
internal import ApsioPOSIX

/// The client side of the control protocol: what `apsioctl` speaks, and what tests drive the
/// server with. Requests go one at a time; after `watch` only events come.
package final class ControlClient: Sendable {
    private let socket: ControlSocket
    /// How long a request waits for its answer (a `reload` fetches policies).
    package let answerTimeout: Duration

    private init(socket: ControlSocket, answerTimeout: Duration) {
        self.socket = socket
        self.answerTimeout = answerTimeout
    }

    /// Connects to the control socket at `path`. A missing socket, or one nobody listens on, is
    /// `notRunning`.
    package static func connect(path: String, answerTimeout: Duration = .seconds(60)) throws(ControlClientError) -> ControlClient {
        guard let address = UnixSocketAddress(path: path) else {
            throw .connection("\(path) is too long for a unix socket path")
        }
        // Blocking for the connect, which on a unix socket completes at once or fails (a full
        // backlog waits, as the daemon is then busy accepting); non-blocking afterwards.
        let fd: OwnedFileDescriptor
        do throws(SystemError) {
            fd = try OwnedFileDescriptor.socket(family: AF_UNIX, type: Int32(SOCK_STREAM.rawValue), nonBlocking: false)
        } catch {
            throw .connection(error.description)
        }
        do throws(SystemError) {
            // A signal interrupts a blocking connect; it is asked again.
            while try !fd.connect(address) {}
        } catch {
            fd.close()
            switch error.errno {
            case ENOENT, ECONNREFUSED, ENOTDIR: throw .notRunning(path: path)
            case EACCES, EPERM: throw .denied(path: path)
            default: throw .connection(error.description)
            }
        }
        do {
            return ControlClient(socket: try ControlSocket(taking: fd), answerTimeout: answerTimeout)
        } catch {
            throw .connection(error.description)
        }
    }

    /// Sends one request and reads its answer. A refusal is `.failed`, not a throw.
    package func send(_ request: ControlRequest) async throws(ControlClientError) -> ControlAnswer {
        try await exchange(request).answer
    }

    /// Sends one request; its answer, and the line it came as (`apsioctl --json` prints that line,
    /// members this client does not know included).
    package func exchange(_ request: ControlRequest) async throws(ControlClientError) -> (answer: ControlAnswer, line: [UInt8]) {
        do {
            try await sendLine(request.line)
        } catch {
            // A daemon with no place for this connection says `busy` and closes it, often before
            // the request is sent ("Broken pipe"); its answer is still there to read.
            guard case .connection = error, let line = try? await readLine(timeout: .seconds(1)),
                let answer = try? ControlAnswer.parse(line, answering: request), case .failed = answer
            else { throw error }
            return (answer, line)
        }
        let line = try await readLine(timeout: answerTimeout)
        guard let line else { throw .connection("apsiod closed the connection without answering") }
        do {
            return (try ControlAnswer.parse(line, answering: request), line)
        } catch {
            throw .badAnswer(error.message)
        }
    }

    /// Sends bytes as they are: tests send what no well-behaved client would.
    package func sendLine(_ bytes: [UInt8]) async throws(ControlClientError) {
        do {
            try await socket.write(bytes, timeout: answerTimeout)
        } catch {
            switch error {
            case .timedOut: throw .timedOut
            case .closed(let reason): throw .connection(reason.description)
            case .cancelled: throw .connection("cancelled")
            }
        }
    }

    /// The next line the daemon sends, without its newline; nil when it closed the connection.
    package func readLine(timeout: Duration? = nil) async throws(ControlClientError) -> [UInt8]? {
        let outcome: ControlSocket.ReadOutcome
        do {
            outcome = try await socket.readLine(maxBytes: ControlAnswer.maxLineBytes, timeout: timeout)
        } catch {
            throw .connection("cancelled")
        }
        switch outcome {
        case .line(let line): return line
        case .closed: return nil
        case .timedOut: throw .timedOut
        case .tooLong: throw .badAnswer("a line longer than \(ControlAnswer.maxLineBytes) bytes")
        }
    }

    /// After `watch` was answered: the next event this client knows, nil when the daemon closed
    /// the stream (it stopped, or dropped this client for reading too slowly).
    package func nextEvent() async throws(ControlClientError) -> ControlEvent? {
        while true {
            guard let (event, _) = try await nextEventLine() else { return nil }
            if let event { return event }
        }
    }

    /// The next event line and the event it holds (nil for an event this client does not know);
    /// nil at the end of the stream.
    package func nextEventLine() async throws(ControlClientError) -> (event: ControlEvent?, line: [UInt8])? {
        guard let line = try await readLine() else { return nil }
        do {
            return (try ControlEvent.parse(line), line)
        } catch {
            throw .badAnswer(error.message)
        }
    }

    package func close() {
        socket.close()
    }
}
