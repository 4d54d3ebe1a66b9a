import ApsioCore
import ApsioNet
package import ApsioPOSIX
import Synchronization

/// A connection of its own for pub/sub: on RESP2 a subscribed connection carries nothing else.
///
/// Pub/sub keeps nothing and delivers at most once: a message published while this connection
/// was down is gone. So every (re)subscription is reported (`onSubscribed`), and its owner treats
/// messages as hints and reads the state again then. The subscriber reconnects by itself, with
/// `RedisBackoff`, and subscribes again to every channel it had; it pings when the connection is
/// quiet, so a Redis that vanished without a reset is noticed within `silence`.
///
/// `sharded` subscribes with `SSUBSCRIBE` (Redis 7's sharded pub/sub, which a cluster routes by
/// the channel's slot: what `SPUBLISH` publishes), one channel a command, since one command's
/// channels must share a slot. A cluster node that stops serving a channel's slot says so
/// (`sunsubscribe` unasked: `onMoved`), and a connection that ends is `onInterrupted`: both for
/// the owner to find where the channel went (`RedisShardedSubscriber`).
package final class RedisSubscriber: Sendable {
    package struct Message: Sendable, Equatable {
        package let channel: String
        package let payload: [UInt8]

        package init(channel: String, payload: [UInt8]) {
            self.channel = channel
            self.payload = payload
        }
    }

    private struct State {
        var channels: Set<String> = []
        var transport: Transport?
        var outbox: [UInt8] = []
        var writing = false
        var writer: Task<Void, Never>?
        var task: Task<Void, Never>?
        var stopped = false
        var connected = false
        /// The channels this connection's node confirmed: a message published on one from now on
        /// reaches this subscriber. Empty again whenever the connection ends.
        var confirmed: Set<String> = []
    }

    package let endpoint: RedisEndpoint
    private let clock: any AgentClock
    private let backoff: RedisBackoff
    private let silence: Duration
    private let limits: RESPLimits
    private let onMessage: @Sendable (Message) -> Void
    private let onSubscribed: @Sendable () -> Void
    private let onInterrupted: @Sendable () -> Void
    private let onMoved: @Sendable (String) -> Void
    private let onConfirmed: @Sendable (String) -> Void
    private let sharded: Bool
    private let executor: (any TaskExecutor)?
    private let state = Mutex(State())

    /// `onMessage` runs on the subscriber's reading task: it must not block (queue, then return).
    /// The subscriber's tasks prefer `executor` (a server's loop, where the owner hears the
    /// messages: each then wakes one thread), or run on the task pool.
    package init(
        endpoint: RedisEndpoint, clock: any AgentClock, backoff: RedisBackoff = RedisBackoff(),
        silence: Duration = .seconds(30), limits: RESPLimits = RESPLimits(maxBufferedBytes: 8 << 20, maxBulkBytes: 4 << 20),
        sharded: Bool = false, executor: (any TaskExecutor)? = nil, onMessage: @escaping @Sendable (Message) -> Void,
        onSubscribed: @escaping @Sendable () -> Void = {},
        onInterrupted: @escaping @Sendable () -> Void = {}, onMoved: @escaping @Sendable (String) -> Void = { _ in },
        onConfirmed: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.onMoved = onMoved
        self.executor = executor
        self.sharded = sharded
        self.onConfirmed = onConfirmed
        self.onInterrupted = onInterrupted
        self.endpoint = endpoint
        self.clock = clock
        self.backoff = backoff
        self.silence = silence
        self.limits = limits
        self.onMessage = onMessage
        self.onSubscribed = onSubscribed
    }

    /// Whether the subscriptions are in place now.
    package var isConnected: Bool { state.withLock { $0.connected } }

    package func start() {
        state.withLock { state in
            guard state.task == nil, !state.stopped else { return }
            state.task = Task(executorPreference: executor) { await self.run() }
        }
    }

    package func stop() {
        let (task, transport) = state.withLock { state -> (Task<Void, Never>?, Transport?) in
            state.stopped = true
            return (state.task, state.transport)
        }
        task?.cancel()
        transport?.fd.shutdown()
    }

    /// Waits until the subscriber has ended after `stop`.
    package func stopped() async {
        await state.withLock { $0.task }?.value
    }

    package func subscribe(_ channels: [String]) {
        let added = state.withLock { state -> [String] in
            let added = channels.filter { state.channels.insert($0).inserted }
            return added
        }
        for command in subscribing(added) { write(command) }
    }

    /// The channels subscribed to now, or on the next connection.
    package var channels: Set<String> { state.withLock { $0.channels } }

    /// Whether the node confirmed `channel` on the connection in place: what is published on it
    /// from now on reaches this subscriber.
    package func isConfirmed(_ channel: String) -> Bool { state.withLock { $0.confirmed.contains(channel) } }

    /// Asks for `channel` again on the connection in place, if it is wanted and not confirmed
    /// there: after its node said it moved, when where it went is not known yet (the node may
    /// serve it again, or answer `MOVED`, which starts the connection again).
    package func resubscribe(_ channel: String) {
        let again = state.withLock { state in state.channels.contains(channel) && !state.confirmed.contains(channel) }
        if again { for command in subscribing([channel]) { write(command) } }
    }

    private func subscribing(_ channels: [String]) -> [RESPCommand] {
        guard !channels.isEmpty else { return [] }
        return sharded ? channels.map { RESPCommand("SSUBSCRIBE", $0) } : [RESPCommand("SUBSCRIBE", channels)]
    }

    package func unsubscribe(_ channels: [String]) {
        let removed = state.withLock { state -> [String] in
            channels.filter { state.confirmed.remove($0); return state.channels.remove($0) != nil }
        }
        guard !removed.isEmpty else { return }
        if sharded {
            for channel in removed { write(RESPCommand("SUNSUBSCRIBE", channel)) }
        } else {
            write(RESPCommand("UNSUBSCRIBE", removed))
        }
    }

    // MARK: - The connection's life

    private func run() async {
        var failures = 0
        while !Task.isCancelled {
            do {
                try await session()
                failures = 0
            } catch {
                failures += 1
            }
            if Task.isCancelled || state.withLock({ $0.stopped }) { break }
            onInterrupted()
            let delay = backoff.delay(afterFailures: max(failures, 1), unit: Double.random(in: 0..<1))
            do {
                try await clock.sleep(until: clock.now().mono + delay)
            } catch {
                break
            }
        }
    }

    /// One connection: subscribe to every channel, then read until it fails.
    private func session() async throws {
        let transport: Transport
        switch endpoint.address {
        case .tcp(let host, let port):
            transport = try await Transport.connect(host: host, port: port, deadline: .now + .seconds(5))
        case .unix(let path):
            guard let address = UnixSocketAddress(path: path) else { throw RedisError.unavailable(reason: "\(path): the path is too long for a unix socket", retryIn: .zero) }
            transport = try Transport.connect(unix: address)
        }
        let channels = state.withLock { state -> [String]? in
            guard !state.stopped else { return nil }
            state.transport = transport
            return state.channels.sorted()
        }
        guard let channels else {
            transport.close()
            return
        }
        do {
            try await subscribed(on: transport, to: channels)
        } catch {
            await end(transport)
            throw error
        }
        await end(transport)
    }

    /// Lets the connection go: no more writes are queued to it, the writer is woken and waited
    /// for, and only then is the socket closed (never while a wait on it may be in the reactor).
    private func end(_ transport: Transport) async {
        let writer = state.withLock { state -> Task<Void, Never>? in
            state.connected = false
            state.confirmed = []
            state.transport = nil
            state.outbox = []
            return state.writer
        }
        transport.fd.shutdown()
        await writer?.value
        transport.close()
    }

    private func subscribed(on transport: Transport, to channels: [String]) async throws {
        // Pub/sub channels are not per database: no SELECT. An empty set still pings, so the
        // connection is known good before it is reported. Through the one writer, which a
        // subscribe() racing this start also uses, so two writes never interleave on the socket.
        for command in subscribing(channels) { write(command) }
        write(RESPCommand("PING"))
        var parser = RESPReplyParser(limits: limits)
        var reported = false
        var pinged = false
        while !Task.isCancelled {
            let bytes: [UInt8]
            do {
                bytes = try await transport.read(maxCount: 64 << 10, until: .now + silence / 2)
            } catch TransportError.timedOut {
                // Quiet for half the allowed silence: ask, and give up if the answer does not come.
                guard !pinged else { throw RedisError.timedOut }
                pinged = true
                write(RESPCommand("PING"))
                continue
            }
            guard !bytes.isEmpty else { throw RedisError.unavailable(reason: "\(endpoint) closed the connection", retryIn: .zero) }
            pinged = false
            try parser.append(bytes)
            while let reply = try parser.next() {
                guard let elements = reply.elements, let kind = elements.first?.text?.lowercased() else {
                    // A refused subscription too (`MOVED`: a channel of a slot this node does not
                    // serve): the connection starts again, and the owner hears `onInterrupted`.
                    if case .error(let message) = reply { throw RedisError.unavailable(reason: message, retryIn: .zero) }
                    continue
                }
                switch kind {
                case "message" where elements.count == 3, "smessage" where elements.count == 3:
                    if let channel = elements[1].text, let payload = elements[2].bytes {
                        onMessage(Message(channel: channel, payload: payload))
                    }
                case "pong":
                    if !reported {
                        reported = true
                        state.withLock { $0.connected = true }
                        onSubscribed()
                    }
                case "ssubscribe" where elements.count == 3, "subscribe" where elements.count == 3:
                    // Confirmed for this connection, unless let go meanwhile (its unsubscribe follows).
                    if let channel = elements[1].text, state.withLock({ state in
                        guard state.channels.contains(channel) else { return false }
                        return state.confirmed.insert(channel).inserted
                    }) {
                        onConfirmed(channel)
                    }
                case "sunsubscribe" where elements.count == 3:
                    // Unasked while the channel is still wanted: its slot moved to another node.
                    if let channel = elements[1].text, state.withLock({ state in
                        state.confirmed.remove(channel)
                        return state.channels.contains(channel)
                    }) {
                        onMoved(channel)
                    }
                default:
                    break  // subscribe and unsubscribe confirmations
                }
            }
        }
    }

    // MARK: - Writing

    /// Queues `command` for the connection in place; dropped when there is none (the next one
    /// subscribes to the whole set anyway).
    private func write(_ command: RESPCommand) {
        state.withLock { state in
            guard let transport = state.transport else { return }
            command.encode(into: &state.outbox)
            guard !state.writing else { return }
            state.writing = true
            // Made under the lock, so `end` always finds the writer it must wait for.
            state.writer = Task(executorPreference: executor) { await self.flush(transport) }
        }
    }

    /// Writes the outbox until it is empty, or the connection changed.
    private func flush(_ transport: Transport) async {
        while true {
            let bytes = state.withLock { state -> [UInt8] in
                guard !state.outbox.isEmpty, state.transport === transport else {
                    state.writing = false
                    return []
                }
                defer { state.outbox = [] }
                return state.outbox
            }
            guard !bytes.isEmpty else { return }
            do {
                try await transport.write(bytes, until: .now + .seconds(5))
            } catch {
                transport.fd.shutdown()  // the reader sees it end, and connects again
            }
        }
    }
}
