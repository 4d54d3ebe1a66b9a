import ApsioNet
package import ApsioPOSIX
import Synchronization

/// One connection to Redis, pipelined: requests go out as they come and their replies come back
/// in the same order, so each request waits in a FIFO for the reply that is its own.
///
/// What makes the pairing safe: once anything goes wrong (a deadline passed, the stream ended, a
/// byte that is not RESP) the connection is failed as a whole. Every request waiting on it fails,
/// it is shut down and closed, and nothing is ever read from it again, so a late reply can never
/// answer the next request. A request whose task is cancelled is not taken out of the FIFO: its
/// replies still arrive and are dropped, which keeps the pairing of the ones behind it.
///
/// Its reader waits only while requests wait (Redis sends nothing unasked on a connection that
/// has not subscribed), until the earliest deadline of those in the FIFO, and runs on the reactor's
/// thread (`Readiness.onReady`): a reply wakes the task it answers and no other. Requests are
/// written by the task that sends them while the socket takes them, by a writer task when it does
/// not. Each request would otherwise cost two tasks and four thread wake-ups, which is most of
/// what a fleet backend's request spends.
package final class RedisConnection: Sendable {
    package struct Limits: Sendable {
        /// Requests waiting for their reply; past it a request fails with `overloaded` at once.
        package var maxPending: Int
        /// Bytes of requests not yet written to the socket.
        package var maxOutboxBytes: Int
        package var resp: RESPLimits

        package init(maxPending: Int = 10_000, maxOutboxBytes: Int = 16 << 20, resp: RESPLimits = .standard) {
            self.maxPending = maxPending
            self.maxOutboxBytes = maxOutboxBytes
            self.resp = resp
        }
    }

    /// One `send`: its replies, as they arrive, until there are as many as commands.
    private struct Waiting {
        let expected: Int
        var replies: [RESPValue] = []
        let deadline: ContinuousClock.Instant
        /// Nil once the caller was cancelled: the replies are read and dropped.
        var continuation: CheckedContinuation<[RESPValue], any Error>?
    }

    private struct State {
        var fifo: [Waiting] = []
        var head = 0
        var outbox: [UInt8] = []
        var writing = false
        var reading = false
        var failure: RedisError?
        /// `fifo[i]` is request number `firstID + i`: a cancelled caller finds its own by number.
        var firstID: UInt64 = 0
        var nextID: UInt64 = 0

        mutating func append(_ waiting: Waiting) -> UInt64 {
            fifo.append(waiting)
            defer { nextID += 1 }
            return nextID
        }

        func index(of id: UInt64) -> Int? {
            guard id >= firstID else { return nil }
            let index = Int(id - firstID)
            return index >= head && index < fifo.count ? index : nil
        }

        mutating func removeAll() {
            fifo.removeAll(keepingCapacity: true)
            head = 0
            firstID = nextID
        }

        var waitingCount: Int { fifo.count - head }
        var earliestDeadline: ContinuousClock.Instant? {
            fifo[head...].lazy.map(\.deadline).min()
        }
    }

    private let transport: Transport
    private let state = Mutex(State())
    /// The replies read and not yet whole; only the reader touches it.
    private let parser: Mutex<RESPReplyParser>
    private let limits: Limits
    package let endpoint: RedisEndpoint
    /// Bumped when a request is admitted, answered or failed.
    private let activity: ChangeSignal

    private init(transport: Transport, endpoint: RedisEndpoint, limits: Limits, activity: ChangeSignal) {
        self.transport = transport
        self.endpoint = endpoint
        self.limits = limits
        self.activity = activity
        parser = Mutex(RESPReplyParser(limits: limits.resp))
    }

    /// Connects, and selects the endpoint's database.
    package static func open(
        _ endpoint: RedisEndpoint, deadline: ContinuousClock.Instant, limits: Limits = Limits(),
        activity: ChangeSignal = ChangeSignal()
    ) async throws(RedisError) -> RedisConnection {
        let transport: Transport
        do {
            switch endpoint.address {
            case .tcp(let host, let port):
                transport = try await Transport.connect(host: host, port: port, deadline: deadline)
            case .unix(let path):
                guard let address = UnixSocketAddress(path: path) else {
                    throw RedisError.unavailable(reason: "\(path): the path is too long", retryIn: .zero)
                }
                transport = try Transport.connect(unix: address)
            }
        } catch let error as RedisError {
            throw error
        } catch {
            throw .unavailable(reason: "cannot connect to \(endpoint): \(error)", retryIn: .zero)
        }
        let connection = RedisConnection(transport: transport, endpoint: endpoint, limits: limits, activity: activity)
        if endpoint.database != 0 {
            let reply: [RESPValue]
            do {
                reply = try await connection.send([RESPCommand("SELECT", String(endpoint.database))], deadline: deadline)
            } catch {
                connection.close()
                throw (error as? RedisError) ?? .closed
            }
            if case .error(let message) = reply.first {
                connection.close()
                throw .unavailable(reason: "SELECT \(endpoint.database): \(message)", retryIn: .zero)
            }
        }
        return connection
    }

    /// Whether the connection failed or was closed: its owner opens another.
    package var isFailed: Bool { state.withLock { $0.failure != nil } }

    /// Requests sent and not yet answered.
    package var waitingCount: Int { state.withLock { $0.waitingCount } }

    /// Sends `commands` in one write, after any others already waiting, and returns their
    /// replies in order (an error reply is a reply). Throws when the connection fails or the
    /// deadline passes first; `CancellationError` when the task is cancelled.
    package func send(_ commands: [RESPCommand], deadline: ContinuousClock.Instant) async throws -> [RESPValue] {
        guard !commands.isEmpty else { return [] }
        var bytes: [UInt8] = []
        for command in commands { command.encode(into: &bytes) }
        let slot = Mutex<(id: UInt64?, cancelled: Bool)>((nil, false))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[RESPValue], any Error>) in
                let outcome = state.withLock { state -> Admission in
                    if let failure = state.failure { return .refused(failure) }
                    if slot.withLock({ $0.cancelled }) { return .refused(nil) }
                    guard state.waitingCount < limits.maxPending, state.outbox.count + bytes.count <= limits.maxOutboxBytes else {
                        return .refused(.overloaded)
                    }
                    let id = state.append(Waiting(expected: commands.count, deadline: deadline, continuation: continuation))
                    slot.withLock { $0.id = id }
                    state.outbox += bytes
                    let startWriter = !state.writing
                    if startWriter { state.writing = true }
                    let startReader = !state.reading
                    if startReader { state.reading = true }
                    return .admitted(startWriter: startWriter, startReader: startReader)
                }
                switch outcome {
                case .refused(let failure?): continuation.resume(throwing: failure)
                case .refused(nil): continuation.resume(throwing: CancellationError())
                case .admitted(let startWriter, let startReader):
                    activity.notify()
                    if startWriter { writeNowOrLater() }
                    if startReader { armReader() }
                }
            }
        } onCancel: {
            let abandoned = state.withLock { state -> CheckedContinuation<[RESPValue], any Error>? in
                let id = slot.withLock { slot -> UInt64? in
                    slot.cancelled = true
                    return slot.id
                }
                guard let id, let index = state.index(of: id) else { return nil }
                defer { state.fifo[index].continuation = nil }
                return state.fifo[index].continuation
            }
            abandoned?.resume(throwing: CancellationError())
        }
    }

    private enum Admission {
        case refused(RedisError?)
        case admitted(startWriter: Bool, startReader: Bool)
    }

    /// Fails every waiting request with `closed`, and closes the socket.
    package func close() {
        fail(.closed)
    }

    // MARK: - The writer

    /// Writes the outbox in the caller's own turn while the socket takes it all, as it nearly
    /// always does (a request is a few hundred bytes): no task and no trip through the reactor. What
    /// it does not take is left to `writeOutbox`. Called by the one writer (`writing`).
    private func writeNowOrLater() {
        while true {
            let bytes = state.withLock { state -> [UInt8]? in
                if state.failure != nil || state.outbox.isEmpty {
                    state.writing = false
                    return nil
                }
                defer { state.outbox = [] }
                return state.outbox
            }
            guard let bytes else {
                closeIfIdle()
                return
            }
            let written: Int
            do {
                written = try transport.writeWithoutWaiting(bytes)
            } catch {
                fail(.unavailable(reason: "writing to \(endpoint): \(error)", retryIn: .zero))
                continue
            }
            if written < bytes.count {
                state.withLock { $0.outbox = Array(bytes[written...]) + $0.outbox }
                Task { await self.writeOutbox() }
                return
            }
        }
    }

    /// Writes the outbox until it is empty. One at a time (`writing`), so requests never mix.
    private func writeOutbox() async {
        while true {
            let (bytes, deadline) = state.withLock { state -> ([UInt8], ContinuousClock.Instant?) in
                if state.failure != nil || state.outbox.isEmpty {
                    state.writing = false
                    return ([], nil)
                }
                defer { state.outbox = [] }
                return (state.outbox, state.earliestDeadline)
            }
            guard let deadline else {
                closeIfIdle()
                return
            }
            do {
                try await transport.write(bytes, until: deadline)
            } catch TransportError.timedOut {
                fail(.timedOut)
            } catch {
                fail(.unavailable(reason: "writing to \(endpoint): \(error)", retryIn: .zero))
            }
        }
    }

    // MARK: - The reader

    /// Waits, on the reactor, for replies while requests wait for them, until the earliest of
    /// their deadlines. What arrives is parsed and handed to its requests on the reactor's thread:
    /// a reply wakes only the task it is for. Called by the one reader (`reading`).
    private func armReader() {
        let deadline = state.withLock { state -> ContinuousClock.Instant? in
            if state.failure != nil || state.waitingCount == 0 {
                state.reading = false
                return nil
            }
            return state.earliestDeadline
        }
        guard let deadline else {
            closeIfIdle()
            return
        }
        Readiness.onReady(transport.fd.rawValue, for: .readable, timeout: max(deadline - .now, .zero)) { outcome in
            self.readable(outcome)
        }
    }

    /// Reads what came, hands out the replies it completes, and waits again if requests still do.
    private func readable(_ outcome: Readiness.Outcome) {
        guard outcome == .ready else {
            fail(.timedOut)
            armReader()
            return
        }
        while state.withLock({ $0.failure == nil }) {
            let bytes: [UInt8]?
            do {
                bytes = try transport.readWithoutWaiting(maxCount: 16 << 10)
            } catch {
                fail(.unavailable(reason: "reading from \(endpoint): \(error)", retryIn: .zero))
                break
            }
            guard let bytes else { break }
            guard !bytes.isEmpty else {
                fail(.unavailable(reason: "\(endpoint) closed the connection", retryIn: .zero))
                break
            }
            let replies = parser.withLock { parser -> Result<[RESPValue], RESPProtocolError> in
                do throws(RESPProtocolError) {
                    try parser.append(bytes)
                    var replies: [RESPValue] = []
                    while let reply = try parser.next() { replies.append(reply) }
                    return .success(replies)
                } catch {
                    return .failure(error)
                }
            }
            switch replies {
            case .success(let replies):
                for reply in replies where !deliver(reply) {
                    fail(.protocolViolation(.unsolicitedReply))
                    break
                }
            case .failure(let error):
                fail(.protocolViolation(error))
            }
        }
        armReader()
    }

    /// Gives `reply` to the request at the head of the FIFO; false when none waits.
    private func deliver(_ reply: RESPValue) -> Bool {
        let done = state.withLock { state -> (Bool, CheckedContinuation<[RESPValue], any Error>?, [RESPValue]) in
            guard state.head < state.fifo.count else { return (false, nil, []) }
            state.fifo[state.head].replies.append(reply)
            guard state.fifo[state.head].replies.count == state.fifo[state.head].expected else { return (true, nil, []) }
            let finished = state.fifo[state.head]
            state.head += 1
            if state.head == state.fifo.count {
                state.removeAll()
            } else if state.head >= 1024, state.head * 2 >= state.fifo.count {
                state.fifo.removeSubrange(0..<state.head)
                state.firstID += UInt64(state.head)
                state.head = 0
            }
            return (true, finished.continuation, finished.replies)
        }
        done.1?.resume(returning: done.2)
        if done.1 != nil { activity.notify() }
        return done.0
    }

    // MARK: - Failing

    /// Fails the connection once: every waiting request gets `error`, the socket is shut down
    /// (which wakes the reader and the writer), and it is closed when neither uses it.
    private func fail(_ error: RedisError) {
        let waiting = state.withLock { state -> [CheckedContinuation<[RESPValue], any Error>] in
            guard state.failure == nil else { return [] }
            state.failure = error
            defer {
                state.removeAll()
                state.outbox = []
            }
            return state.fifo[state.head...].compactMap(\.continuation)
        }
        transport.fd.shutdown()
        for continuation in waiting { continuation.resume(throwing: error) }
        activity.notify()
        closeIfIdle()
    }

    /// Closes the socket of a failed connection once no reader or writer waits on it: the number
    /// stays ours while a wait on it may still be in the reactor's set.
    private func closeIfIdle() {
        let close = state.withLock { $0.failure != nil && !$0.reading && !$0.writing }
        if close { transport.close() }
    }
}
