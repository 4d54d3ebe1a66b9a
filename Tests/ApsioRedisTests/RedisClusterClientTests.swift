import ApsioCore
import ApsioPOSIX
@testable import ApsioRedis
import ApsioTestSupport
import Synchronization
import Testing

/// The client on a real Redis Cluster of Debian's redis-server (three masters, a replica each,
/// on loopback): named by one node, it finds the others and routes every key to the master
/// serving its slot; it follows a slot that migrates (`ASK`) and then moves (`MOVED`), and a
/// master killed and replaced by its replica.
@Suite(.serialized) struct RedisClusterClientTests {
    static func client(_ cluster: RedisClusterFixture) throws -> RedisClient {
        RedisClient(endpoint: try RedisEndpoint(parsing: cluster.seed), clock: SystemAgentClock(), timeout: .seconds(60))
    }

    /// One key for each master, by asking the cluster which master serves it.
    static func keysOnEveryMaster(_ cluster: RedisClusterFixture) throws -> [Int: String] {
        var keys: [Int: String] = [:]
        let masters = try cluster.masters().map(\.port)
        var index = 0
        while keys.count < masters.count {
            let key = "key:\(index)"
            let master = try cluster.master(ofKey: key)
            if keys[master] == nil { keys[master] = key }
            index += 1
        }
        return keys
    }

    @Test func aClientNamingOneNodeReachesTheKeysOfEveryMaster() async throws {
        let cluster = try await RedisClusterFixture.start(replicasPerMaster: 0)
        let client = try Self.client(cluster)
        defer { client.close() }
        let keys = try Self.keysOnEveryMaster(cluster)
        for (master, key) in keys {
            #expect(try await client.send(RESPCommand("SET", key, "on \(master)"), on: key) == .simple("OK"))
            // Written where the cluster says the key lives, not merely somewhere.
            #expect(try cluster.cli(port: master, "GET", key) == "on \(master)")
        }
        #expect(client.isCluster == true)
        // Keys of several masters in one call: each asked of its own, the replies in order.
        let ordered = keys.sorted { $0.value < $1.value }
        let replies = try await client.sendEach(ordered.map { (key: $0.value, command: RESPCommand("GET", $0.value)) })
        #expect(replies.map(\.text) == ordered.map { "on \($0.key)" })
    }

    /// A backend started while the first node it names is down finds the cluster through the next.
    @Test func severalNodesNamedAreAskedInTurnUntilOneAnswers() async throws {
        let cluster = try await RedisClusterFixture.start(replicasPerMaster: 0)
        let down = try RedisEndpoint(parsing: "redis://127.0.0.1:1")
        let client = RedisClient(
            seeds: [down, try RedisEndpoint(parsing: cluster.seed)], clock: SystemAgentClock(), timeout: .seconds(60))
        defer { client.close() }
        let keys = try Self.keysOnEveryMaster(cluster)
        for (master, key) in keys {
            #expect(try await client.send(RESPCommand("SET", key, "found"), on: key) == .simple("OK"))
            #expect(try cluster.cli(port: master, "GET", key) == "found")
        }
        #expect(client.isCluster == true)
    }

    @Test func aSlotThatMigratesIsFollowedAndTheMapCorrected() async throws {
        let cluster = try await RedisClusterFixture.start(replicasPerMaster: 0)
        let client = try Self.client(cluster)
        defer { client.close() }
        let key = "migrating"
        _ = try await client.send(RESPCommand("SET", key, "before"), on: key)
        let source = try cluster.master(ofKey: key)
        let target = try #require(try cluster.masters().map(\.port).first { $0 != source })
        let slot = RedisHashSlot.slot(of: key)
        #expect(String(slot) == (try cluster.cli(port: source, "CLUSTER", "KEYSLOT", key)))
        let sourceID = try cluster.cli(port: source, "CLUSTER", "MYID")
        let targetID = try cluster.cli(port: target, "CLUSTER", "MYID")

        // Mid-migration, the key already on the target: the source answers ASK.
        _ = try cluster.cli(port: target, "CLUSTER", "SETSLOT", String(slot), "IMPORTING", sourceID)
        _ = try cluster.cli(port: source, "CLUSTER", "SETSLOT", String(slot), "MIGRATING", targetID)
        _ = try cluster.cli(port: source, "MIGRATE", "127.0.0.1", String(target), key, "0", "5000")
        #expect(try await client.send(RESPCommand("GET", key), on: key).text == "before")
        #expect(try await client.send(RESPCommand("SET", key, "asked"), on: key) == .simple("OK"))
        #expect(try await client.send(RESPCommand("GET", key), on: key).text == "asked")
        // Not on the source, which sends whoever asks for it to the target.
        #expect(try cluster.cli(port: source, "GET", key).hasPrefix("ASK \(slot) "))

        // The slot moved for good: the source answers MOVED, the client goes to the target.
        for port in [target, source] { _ = try cluster.cli(port: port, "CLUSTER", "SETSLOT", String(slot), "NODE", targetID) }
        #expect(try await client.send(RESPCommand("SET", key, "moved"), on: key) == .simple("OK"))
        #expect(try cluster.cli(port: target, "GET", key) == "moved")
        #expect(try await client.send(RESPCommand("GET", key), on: key).text == "moved")
    }

    @Test func aKilledMastersSlotsAreServedByItsReplicaAndRequestsGoThere() async throws {
        let cluster = try await RedisClusterFixture.start()
        let client = try Self.client(cluster)
        defer { client.close() }
        let keys = try Self.keysOnEveryMaster(cluster)
        for (_, key) in keys { _ = try await client.send(RESPCommand("SET", key, "kept"), on: key) }
        let (victim, key) = try #require(keys.first)
        try await cluster.waitForReplicas(of: victim)
        cluster.kill(port: victim)

        // Until the replica is promoted, requests for its slots fail as unavailable, never hang
        // or answer wrong.
        let failures = Mutex(0)
        try await poll("the promoted replica serves the killed master's keys") {
            do {
                let reply = try await client.send(RESPCommand("GET", key), on: key)
                #expect(reply.text == "kept", "the promoted replica had the write")
                return true
            } catch RedisError.unavailable {
                failures.withLock { $0 += 1 }
                // The other masters' keys are served, or unavailable while the whole cluster
                // says it is down (a slot without a master stops it, by default): never wrong.
                for (master, other) in keys where master != victim {
                    do {
                        #expect(try await client.send(RESPCommand("GET", other), on: other).text == "kept")
                    } catch RedisError.unavailable {}
                }
                return false
            }
        }
        #expect(failures.withLock { $0 } > 0, "the killed master's keys were unavailable for a while")
        #expect(try await client.send(RESPCommand("SET", key, "after"), on: key) == .simple("OK"))
        let promoted = try cluster.master(ofKey: key)
        #expect(promoted != victim)
        #expect(try cluster.cli(port: promoted, "GET", key) == "after")
    }

    /// A resharding moves a channel's slot: its node tells the subscriber so (`sunsubscribe`), and
    /// the channel is subscribed again on the master serving it now.
    @Test func aShardedSubscriptionFollowsItsSlotToAnotherMaster() async throws {
        let cluster = try await RedisClusterFixture.start(replicasPerMaster: 0)
        let client = try Self.client(cluster)
        defer { client.close() }
        let channel = "moving"
        let (subscriber, heard) = Self.listening(client, to: [channel])
        defer { subscriber.stop() }
        try await poll("the channel is subscribed") { subscriber.isConnected }
        let source = try cluster.master(ofKey: channel)
        let masters = try cluster.masters().map(\.port)
        let target = try #require(masters.first { $0 != source })
        let slot = String(RedisHashSlot.slot(of: channel))
        let targetID = try cluster.cli(port: target, "CLUSTER", "MYID")
        for port in [target, source] + masters.filter({ $0 != target && $0 != source }) {
            _ = try cluster.cli(port: port, "CLUSTER", "SETSLOT", slot, "NODE", targetID)
        }
        try await poll("the channel is heard on the master its slot moved to") {
            _ = try? cluster.cli(port: target, "SPUBLISH", channel, "moved")
            return heard.texts.contains("moved")
        }
        #expect(try cluster.cli(port: source, "PUBSUB", "SHARDNUMSUB", channel).hasSuffix("0"), "nothing is left subscribed on the node that lost it")
    }

    /// The node that lost a channel's slot says so before the other nodes know where it went: the
    /// map read right after names the same node again. The channel is asked for again until the
    /// nodes agree, then heard where it went; never left dead on a node that no longer serves it.
    @Test func aSlotMovedBeforeTheOtherNodesKnowIsFollowedOnceTheyDo() async throws {
        let cluster = try await RedisClusterFixture.start(replicasPerMaster: 0)
        let client = try Self.client(cluster)
        defer { client.close() }
        let masters = try cluster.masters().map(\.port)
        // The client reads the map from the masters in slot order: the first is asked first, and
        // is to answer with the old owner. So the channel lives on another master.
        let asked = masters[0]
        var index = 0
        while try cluster.master(ofKey: "moving:\(index)") == asked { index += 1 }
        let channel = "moving:\(index)"
        let source = try cluster.master(ofKey: channel)
        let target = try #require(masters.first { $0 != source })
        let (subscriber, heard) = Self.listening(client, to: [channel])
        defer { subscriber.stop() }
        try await poll("the channel is confirmed") { subscriber.isConfirmed(channel) }

        let slot = String(RedisHashSlot.slot(of: channel))
        let targetID = try cluster.cli(port: target, "CLUSTER", "MYID")
        let mapsRead: @Sendable () throws -> Int = { try Self.slotMapsRead(cluster, port: asked) }
        let before = try mapsRead()
        // Only the source knows: it drops the channel, and the map read then names it still.
        _ = try cluster.cli(port: source, "CLUSTER", "SETSLOT", slot, "NODE", targetID)
        try await poll("the subscriber read the map again after the loss") { try mapsRead() > before }
        for port in masters where port != source {
            _ = try cluster.cli(port: port, "CLUSTER", "SETSLOT", slot, "NODE", targetID)
        }
        try await poll("the channel is heard on the master its slot moved to", seconds: 60) {
            _ = try? cluster.cli(port: target, "SPUBLISH", channel, "moved")
            return heard.texts.contains("moved")
        }
        #expect(try cluster.cli(port: source, "PUBSUB", "SHARDNUMSUB", channel).hasSuffix("0"))
    }

    struct UnreadableStats: Error { let line: String }

    /// What a subscriber heard: each message's payload, as text.
    final class Heard: Sendable {
        private let payloads = Mutex<[String]>([])
        var texts: [String] { payloads.withLock { $0 } }
        func add(_ message: RedisSubscriber.Message) { payloads.withLock { $0.append(String(decoding: message.payload, as: UTF8.self)) } }
    }

    /// A sharded subscriber of `channels`, started, and what it hears.
    static func listening(_ client: RedisClient, to channels: [String]) -> (RedisShardedSubscriber, Heard) {
        let heard = Heard()
        let subscriber = RedisShardedSubscriber(client: client, clock: SystemAgentClock(), onMessage: heard.add)
        subscriber.subscribe(channels)
        subscriber.start()
        return (subscriber, heard)
    }

    /// How many times a node answered `CLUSTER SLOTS`.
    static func slotMapsRead(_ cluster: RedisClusterFixture, port: Int) throws -> Int {
        let stats = try cluster.cli(port: port, "INFO", "commandstats")
        guard let line = stats.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix("cmdstat_cluster|slots:") }) else { return 0 }
        guard let calls = line.split(separator: ",").first?.split(separator: "=").last, let count = Int(calls) else {
            throw UnreadableStats(line: String(line))
        }
        return count
    }

    @Test func shardedSubscriptionsHearEachMasterAndFollowAFailover() async throws {
        let cluster = try await RedisClusterFixture.start()
        let client = try Self.client(cluster)
        defer { client.close() }
        let channels = try Self.keysOnEveryMaster(cluster)
        let (subscriber, heard) = Self.listening(client, to: Array(channels.values))
        defer { subscriber.stop() }
        try await poll("every channel is subscribed on its master") { subscriber.isConnected }
        for (master, channel) in channels { _ = try cluster.cli(port: master, "SPUBLISH", channel, "before \(master)") }
        try await poll("a message from each master") { heard.texts.count == channels.count }
        #expect(Set(heard.texts) == Set(channels.keys.map { "before \($0)" }))

        let (victim, channel) = try #require(channels.first)
        try await cluster.waitForReplicas(of: victim)
        cluster.kill(port: victim)
        let promoted = try await cluster.waitForFailover(of: victim)
        // Published on the promoted master until the subscriber, having found it, hears one.
        try await poll("the channel is heard on the promoted master") {
            _ = try? cluster.cli(port: promoted, "SPUBLISH", channel, "after")
            return heard.texts.contains("after")
        }
    }
}
