package import ApsioPOSIX
import ApsioCore
import Synchronization

/// The backend's way to Redis, one server or a Redis Cluster, told apart by asking (`CLUSTER
/// SLOTS`) when first connected, so an operator names any node (or several, in case one is down
/// when the backend starts) and the same code runs on both.
///
/// On one server every request goes over one pipelined connection (`RedisNodeClient`). On a
/// cluster each request is routed by the key it names to the master serving that key's slot, over
/// a connection of that master's; a `MOVED` answer corrects the map and the request is sent again
/// where it belongs, an `ASK` sends it there once after `ASKING`. A master that cannot be reached,
/// or a cluster that says it is down, fails the request as `unavailable` (the hub's 503 with
/// `Retry-After`) and makes the client read the map again from any node it knows: after a
/// failover the promoted replica serves the slots, and requests go there.
///
/// Commands pipelined in one `send` go to one node: the node of the key they are routed by.
/// Commands naming keys of several slots are sent with `sendEach`.
package final class RedisClient: Sendable {
    private enum Topology: Sendable {
        case unknown
        case single(RedisEndpoint)
        case cluster(RedisSlotMap, reachedAt: RedisEndpoint)
    }

    private struct State {
        var topology = Topology.unknown
        var discovering: Task<Void, any Error>?
        var nodes: [RedisEndpoint: RedisNodeClient] = [:]
        var refreshing = false
        var lastRefresh: MonotonicInstant?
        var closed = false
    }

    /// The nodes the operator named: the one server, or where the cluster is first asked.
    package let seeds: [RedisEndpoint]
    /// The first of them, as logs name Redis.
    package var endpoint: RedisEndpoint { seeds[0] }
    private let clock: any AgentClock
    private let timeout: Duration
    private let backoff: RedisBackoff
    private let limits: RedisConnection.Limits
    private let prepare: @Sendable (RedisConnection) async throws -> Void
    private let state = Mutex(State())
    private let activity = ChangeSignal()
    /// How often a request may be redirected before it fails: a slot moves once at a time.
    private static let maxRedirections = 5
    /// The map is read again at most this often, however many requests fail meanwhile.
    private static let refreshInterval: Duration = .milliseconds(250)

    /// `prepare` runs on each new connection, to every node, before any request (loading
    /// functions, say): each master of a cluster needs them.
    package convenience init(
        endpoint: RedisEndpoint, clock: any AgentClock, timeout: Duration = .seconds(2),
        backoff: RedisBackoff = RedisBackoff(), limits: RedisConnection.Limits = .init(),
        prepare: @escaping @Sendable (RedisConnection) async throws -> Void = { _ in }
    ) {
        self.init(seeds: [endpoint], clock: clock, timeout: timeout, backoff: backoff, limits: limits, prepare: prepare)
    }

    /// `seeds`: at least one; asked in turn until one answers.
    package init(
        seeds: [RedisEndpoint], clock: any AgentClock, timeout: Duration = .seconds(2),
        backoff: RedisBackoff = RedisBackoff(), limits: RedisConnection.Limits = .init(),
        prepare: @escaping @Sendable (RedisConnection) async throws -> Void = { _ in }
    ) {
        precondition(!seeds.isEmpty, "a Redis client needs a node to ask")
        self.seeds = seeds
        self.clock = clock
        self.timeout = timeout
        self.backoff = backoff
        self.limits = limits
        self.prepare = prepare
    }

    /// Requests sent and not yet answered, on every node.
    package var waitingRequests: Int { state.withLock { $0.nodes.values.reduce(0) { $0 + $1.waitingRequests } } }

    /// Whether the last attempt reached Redis (every master of a cluster that was used).
    package var isConnected: Bool {
        state.withLock { state in
            switch state.topology {
            case .unknown: return false
            case .single(let server): return state.nodes[server]?.isConnected ?? false
            case .cluster(let map, _):
                return map.masters.allSatisfy { state.nodes[$0].map(\.isConnected) ?? true }
                    && map.masters.contains { state.nodes[$0] != nil }
            }
        }
    }

    /// Whether Redis is a cluster; nil until it has been asked.
    package var isCluster: Bool? {
        state.withLock { state in
            switch state.topology {
            case .unknown: nil
            case .single: false
            case .cluster: true
            }
        }
    }

    /// One command's reply, routed by `key` (any node when nil).
    package func send(_ command: RESPCommand, on key: String? = nil, timeout: Duration? = nil) async throws -> RESPValue {
        try await send([command], on: key, timeout: timeout)[0]
    }

    /// The commands pipelined in one write to the node serving `key` (any node when nil), and
    /// their replies in order, within `timeout` (the client's by default).
    package func send(_ commands: [RESPCommand], on key: String? = nil, timeout: Duration? = nil) async throws -> [RESPValue] {
        try await discover()
        let slot = key.map { RedisHashSlot.slot(of: $0) }
        var target = node(for: slot)
        var asking = false
        for _ in 0..<Self.maxRedirections {
            let link = self.link(target)
            var replies: [RESPValue]
            do {
                replies = try await link.send(asking ? [RESPCommand("ASKING")] + commands : commands, timeout: timeout)
            } catch let error as RedisError {
                if error != .overloaded { refreshSoon() }
                throw error
            }
            if asking { replies.removeFirst() }
            asking = false
            if let redirection = replies.lazy.compactMap({ RedisRedirection($0, reachedAt: target) }).first {
                if case .moved(let movedSlot, let to) = redirection {
                    state.withLock { state in
                        if case .cluster(var map, let reachedAt) = state.topology {
                            map.assign(movedSlot, to: to)
                            state.topology = .cluster(map, reachedAt: reachedAt)
                        }
                    }
                    refreshSoon()
                } else {
                    asking = true
                }
                target = redirection.target
                continue
            }
            if let down = replies.lazy.compactMap(Self.clusterUnavailable).first {
                refreshSoon()
                throw RedisError.unavailable(reason: "\(target): \(down)", retryIn: .seconds(1))
            }
            return replies
        }
        throw RedisError.unavailable(reason: "the cluster redirected a request \(Self.maxRedirections) times", retryIn: .seconds(1))
    }

    /// Each command routed by its own key (any node when nil), the commands for one node pipelined
    /// together and the nodes asked at once; the replies in the order of `commands`.
    package func sendEach(_ commands: [(key: String?, command: RESPCommand)], timeout: Duration? = nil) async throws -> [RESPValue] {
        try await discover()
        var groups: [RedisEndpoint: [Int]] = [:]
        var order: [RedisEndpoint] = []
        for (index, item) in commands.enumerated() {
            let node = node(for: item.key.map { RedisHashSlot.slot(of: $0) })
            if groups[node] == nil { order.append(node) }
            groups[node, default: []].append(index)
        }
        if order.count <= 1 {
            return try await send(commands.map(\.command), on: commands.lazy.compactMap(\.key).first, timeout: timeout)
        }
        return try await withThrowingTaskGroup(of: [(Int, RESPValue)].self) { group in
            for node in order {
                let indices = groups[node]!
                let batch = indices.map { commands[$0].command }
                let key = indices.lazy.compactMap { commands[$0].key }.first
                group.addTask { Array(zip(indices, try await self.send(batch, on: key, timeout: timeout))) }
            }
            var replies = [RESPValue](repeating: .bulk(nil), count: commands.count)
            for try await answered in group { for (index, reply) in answered { replies[index] = reply } }
            return replies
        }
    }

    /// The node to subscribe on for a sharded channel: the master serving its slot, or the one
    /// server. Asks Redis which it is when not yet known.
    package func node(forShardChannel channel: String) async throws -> RedisEndpoint {
        try await discover()
        return node(for: RedisHashSlot.slot(of: channel))
    }

    /// Reads the slot map again now (after a subscriber lost its node, say); nothing on one server.
    package func refresh() async {
        guard state.withLock({ state -> Bool in
            guard case .cluster = state.topology, !state.refreshing, !state.closed else { return false }
            state.refreshing = true
            return true
        }) else { return }
        await readSlotMap()
    }

    /// Closes every connection; every request from now on fails with `closed`.
    package func close() {
        let (nodes, discovering) = state.withLock { state -> ([RedisNodeClient], Task<Void, any Error>?) in
            state.closed = true
            defer { state.nodes = [:] }
            return (Array(state.nodes.values), state.discovering)
        }
        discovering?.cancel()
        for node in nodes { node.close() }
    }

    // MARK: - Topology

    /// Asks the named nodes, in turn until one answers, whether Redis is one server or a cluster
    /// (and which node serves what). A failure leaves it unknown: the next request asks again.
    private func discover() async throws {
        let next = state.withLock { state -> Task<Void, any Error>? in
            guard case .unknown = state.topology else { return nil }
            if let discovering = state.discovering { return discovering }
            let task = Task { try await self.ask() }
            state.discovering = task
            return task
        }
        guard let next else { return }
        try await next.value
    }

    private func ask() async throws {
        defer { state.withLock { $0.discovering = nil } }
        var failure: any Error = RedisError.closed
        for seed in seeds {
            if state.withLock({ $0.closed }) { throw RedisError.closed }
            do {
                let topology = try await ask(seed)
                state.withLock { state in
                    state.topology = topology
                    state.lastRefresh = clock.now().mono
                }
                return
            } catch {
                failure = error
            }
        }
        throw failure
    }

    private func ask(_ seed: RedisEndpoint) async throws -> Topology {
        let reply = try await link(seed).send([RESPCommand("CLUSTER", "SLOTS")], timeout: nil)[0]
        if case .error(let message) = reply {
            // "ERR This instance has cluster support disabled": one server.
            guard message.lowercased().contains("cluster support disabled") else {
                throw RedisError.unavailable(reason: "\(seed) answered CLUSTER SLOTS with \(message)", retryIn: .seconds(1))
            }
            return .single(seed)
        }
        guard let map = RedisSlotMap(clusterSlots: reply, reachedAt: seed), !map.ranges.isEmpty else {
            throw RedisError.unavailable(reason: "\(seed) is a cluster node that serves no slot yet", retryIn: .seconds(1))
        }
        return .cluster(map, reachedAt: seed)
    }

    /// Reads the map again in the background, unless it was read a moment ago.
    private func refreshSoon() {
        let now = clock.now().mono
        let go = state.withLock { state -> Bool in
            guard case .cluster = state.topology, !state.refreshing, !state.closed else { return false }
            if let last = state.lastRefresh, now < last + Self.refreshInterval { return false }
            state.refreshing = true
            return true
        }
        if go { Task { await self.readSlotMap() } }
    }

    /// Asks the nodes it knows, masters first, then the named ones, until one answers with a map.
    private func readSlotMap() async {
        let candidates = state.withLock { state -> [RedisEndpoint] in
            guard case .cluster(let map, _) = state.topology else { return [] }
            return map.nodes + seeds.filter { !map.nodes.contains($0) }
        }
        var found: (RedisSlotMap, RedisEndpoint)?
        for candidate in candidates {
            guard let reply = try? await link(candidate).send([RESPCommand("CLUSTER", "SLOTS")], timeout: .milliseconds(500))[0],
                  let map = RedisSlotMap(clusterSlots: reply, reachedAt: candidate), !map.ranges.isEmpty
            else { continue }
            found = (map, candidate)
            break
        }
        let now = clock.now().mono
        state.withLock { state in
            state.refreshing = false
            state.lastRefresh = now
            if let (map, reachedAt) = found { state.topology = .cluster(map, reachedAt: reachedAt) }
        }
    }

    private func node(for slot: Int?) -> RedisEndpoint {
        state.withLock { state in
            switch state.topology {
            case .unknown: return seeds[0]
            case .single(let server): return server
            case .cluster(let map, let reachedAt):
                guard let slot else { return map.masters.first ?? reachedAt }
                return map.master(of: slot) ?? reachedAt
            }
        }
    }

    private func link(_ node: RedisEndpoint) -> RedisNodeClient {
        state.withLock { state in
            if let link = state.nodes[node] { return link }
            let link = RedisNodeClient(
                endpoint: node, clock: clock, timeout: timeout, backoff: backoff, limits: limits, activity: activity, prepare: prepare)
            if state.closed { link.close() } else { state.nodes[node] = link }
            return link
        }
    }

    /// Answers that say the cluster cannot serve the slot now: a failover or a resharding under
    /// way. The request is failed as `unavailable` and tried again later, never as an answer.
    private static func clusterUnavailable(_ reply: RESPValue) -> String? {
        guard case .error(let message) = reply else { return nil }
        for prefix in ["CLUSTERDOWN", "TRYAGAIN", "MASTERDOWN", "LOADING"] where message.hasPrefix(prefix) { return message }
        return nil
    }
}

extension RedisClient: ChangeSource {
    /// Changes when a request is admitted, answered or failed.
    package func markChange() -> @Sendable () async throws -> Void { activity.markChange() }
}
