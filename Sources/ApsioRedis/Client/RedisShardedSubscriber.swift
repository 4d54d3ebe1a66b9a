package import ApsioCore
package import ApsioPOSIX
import Synchronization

/// Sharded pub/sub (`SSUBSCRIBE`) on one server or a Redis Cluster: each channel is subscribed
/// on the node that serves its slot, one `RedisSubscriber` (one connection) per such node.
/// Channels come and go while it runs (`subscribe`, `unsubscribe`): an owner that must not miss
/// what is published once it reads some state waits for the node's confirmation first
/// (`waitUntilConfirmed`).
///
/// Where a channel lives can change: a failover promotes a replica, a resharding moves a slot. A
/// node subscriber that lost its connection, or that its node told a channel went elsewhere,
/// makes the client read the slot map again, and every channel is placed again on the node the
/// map names (and looked at every 2 s anyway); a node left with no channel is let go. The map
/// read right after a node let a channel go may not know yet (the other nodes learn of a moved
/// slot one at a time): a channel it places on the same node again is asked for there again, and
/// that node serves it or answers `MOVED`, which reconnects it, with its backoff, and reads the
/// map again, until the nodes agree. Messages
/// published meanwhile are lost, as for any pub/sub: `onSubscribed` tells the owner each time a
/// node's subscriptions are in place again, to read the state it may have missed.
package final class RedisShardedSubscriber: Sendable {
    private struct State {
        var channels: Set<String> = []
        var placed: [String: RedisEndpoint] = [:]
        /// The channels a node said it no longer serves, and that node, until placed again.
        var moved: [String: RedisEndpoint] = [:]
        var nodes: [RedisEndpoint: RedisSubscriber] = [:]
        var interrupted = false
        var task: Task<Void, Never>?
        var stopped = false
    }

    private let client: RedisClient
    private let clock: any AgentClock
    private let onMessage: @Sendable (RedisSubscriber.Message) -> Void
    private let onSubscribed: @Sendable () -> Void
    private let executor: (any TaskExecutor)?
    private let state = Mutex(State())
    private let changed = ChangeSignal()
    /// Notified at each channel a node confirms.
    private let confirmations = ChangeSignal()
    /// How often the channels are placed again when nothing said they moved.
    private static let recheck: Duration = .seconds(2)

    /// `onMessage` runs on a node subscriber's reading task: it must not block. Every task of it
    /// prefers `executor`, as `RedisSubscriber`'s do.
    package init(
        client: RedisClient, clock: any AgentClock, executor: (any TaskExecutor)? = nil,
        onMessage: @escaping @Sendable (RedisSubscriber.Message) -> Void, onSubscribed: @escaping @Sendable () -> Void = {}
    ) {
        self.executor = executor
        self.client = client
        self.clock = clock
        self.onMessage = onMessage
        self.onSubscribed = onSubscribed
    }

    /// Whether every node holding channels is connected. A channel just added and not yet
    /// placed does not count: it is placed within moments, and a device watched for the first
    /// time must not show the backend as degraded.
    package var isConnected: Bool {
        state.withLock { state in
            guard !state.channels.isEmpty else { return true }
            return !state.nodes.isEmpty && state.nodes.values.allSatisfy(\.isConnected)
        }
    }

    package func subscribe(_ channels: [String]) {
        let added = state.withLock { state in channels.filter { state.channels.insert($0).inserted } }
        if !added.isEmpty { changed.notify() }
    }

    /// Lets the channels go: their node stops sending them, and a node left with none is let go.
    package func unsubscribe(_ channels: [String]) {
        let removed = state.withLock { state in channels.filter { state.channels.remove($0) != nil } }
        if !removed.isEmpty { changed.notify() }
    }

    /// Whether the node serving `channel` confirmed it on the connection in place.
    package func isConfirmed(_ channel: String) -> Bool {
        state.withLock { state in state.placed[channel].flatMap { state.nodes[$0] }?.isConfirmed(channel) ?? false }
    }

    /// Waits until `channel` is confirmed, or `deadline`; returns whether it is. Bounded, since a
    /// Redis away never confirms anything: the caller goes on and learns what it missed otherwise.
    package func waitUntilConfirmed(_ channel: String, until deadline: MonotonicInstant) async -> Bool {
        while !Task.isCancelled {
            let wait = confirmations.markChange()
            if isConfirmed(channel) { return true }
            guard clock.now().mono < deadline else { return false }
            let clock = clock
            await withTaskGroup(of: Void.self) { group in
                group.addTask { try? await wait() }
                group.addTask { try? await clock.sleep(until: deadline) }
                await group.next()
                group.cancelAll()
            }
        }
        return false
    }

    package func start() {
        state.withLock { state in
            guard state.task == nil, !state.stopped else { return }
            state.task = Task(executorPreference: executor) { await self.run() }
        }
    }

    package func stop() {
        let (task, nodes) = state.withLock { state -> (Task<Void, Never>?, [RedisSubscriber]) in
            state.stopped = true
            return (state.task, Array(state.nodes.values))
        }
        task?.cancel()
        for node in nodes { node.stop() }
    }

    /// Waits until every node subscriber has ended after `stop`.
    package func stopped() async {
        await state.withLock { $0.task }?.value
        for node in state.withLock({ Array($0.nodes.values) }) { await node.stopped() }
    }

    private func run() async {
        while !Task.isCancelled {
            let wait = changed.markChange()
            if state.withLock({ state in defer { state.interrupted = false }; return state.interrupted }) { await client.refresh() }
            await place()
            let clock = clock
            await withTaskGroup(of: Void.self) { group in
                group.addTask { try? await wait() }
                group.addTask { try? await clock.sleep(until: clock.now().mono + Self.recheck) }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// Puts each channel on the node serving its slot, and lets go of nodes that serve none.
    private func place() async {
        let channels = state.withLock { $0.channels }
        var wanted: [String: RedisEndpoint] = [:]
        for channel in channels {
            // Redis unreachable: the channels stay where they are until it answers.
            guard let node = try? await client.node(forShardChannel: channel) else { return }
            wanted[channel] = node
        }
        var started: [RedisSubscriber] = []
        var let_go: [RedisSubscriber] = []
        state.withLock { state in
            guard !state.stopped else { return }
            // Let go since: unsubscribed where they were placed (a channel wanted again meanwhile
            // is in `channels` and placed below).
            for (channel, node) in state.placed where !state.channels.contains(channel) {
                state.nodes[node]?.unsubscribe([channel])
                state.placed[channel] = nil
            }
            // Said moved, and placed where it was: asked for there again, never left unsubscribed.
            for (channel, node) in state.moved {
                state.moved[channel] = nil
                if state.channels.contains(channel), state.placed[channel] == node, wanted[channel] == node {
                    state.nodes[node]?.resubscribe(channel)
                }
            }
            for (channel, node) in wanted where state.channels.contains(channel) && state.placed[channel] != node {
                if let old = state.placed[channel] { state.nodes[old]?.unsubscribe([channel]) }
                let subscriber = state.nodes[node] ?? {
                    let made = RedisSubscriber(
                        endpoint: node, clock: clock, sharded: true, executor: executor, onMessage: onMessage,
                        onSubscribed: onSubscribed,
                        onInterrupted: { [weak self] in self?.interrupted() },
                        onMoved: { [weak self] channel in self?.moved(channel, from: node) },
                        onConfirmed: { [weak self] _ in self?.confirmations.notify() })
                    state.nodes[node] = made
                    started.append(made)
                    return made
                }()
                subscriber.subscribe([channel])
                state.placed[channel] = node
            }
            for (node, subscriber) in state.nodes where subscriber.channels.isEmpty {
                state.nodes[node] = nil
                let_go.append(subscriber)
            }
        }
        for subscriber in started { subscriber.start() }
        for subscriber in let_go {
            subscriber.stop()
            await subscriber.stopped()
        }
    }

    private func interrupted() {
        state.withLock { $0.interrupted = true }
        changed.notify()
    }

    private func moved(_ channel: String, from node: RedisEndpoint) {
        state.withLock { state in
            state.moved[channel] = node
            state.interrupted = true
        }
        changed.notify()
    }
}
