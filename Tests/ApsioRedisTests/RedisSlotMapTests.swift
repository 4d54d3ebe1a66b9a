@testable import ApsioRedis
import Testing

/// The cluster's pure rules: which slot a key hashes to (the specification's examples), what a
/// `CLUSTER SLOTS` reply says, and what a redirection names.
@Suite struct RedisSlotMapTests {
    @Test func slotsAreTheSpecificationsCRC16OfTheKeyOrItsHashTag() {
        // The cluster specification's check value of its CRC16.
        #expect(RedisHashSlot.crc16(Array("123456789".utf8)) == 0x31C3)
        #expect(RedisHashSlot.slot(of: "foo") == 12182)
        #expect(RedisHashSlot.slot(of: "{user1000}.following") == RedisHashSlot.slot(of: "{user1000}.followers"))
        #expect(RedisHashSlot.slot(of: "{user1000}.following") == RedisHashSlot.slot(of: "user1000"))
        // The first braces only; empty braces hash the whole key.
        #expect(RedisHashSlot.slot(of: "foo{bar}{zap}") == RedisHashSlot.slot(of: "bar"))
        #expect(RedisHashSlot.slot(of: "foo{}{bar}") == Int(RedisHashSlot.crc16(Array("foo{}{bar}".utf8)) % 16384))
        #expect(RedisHashSlot.slot(of: "foo{{bar}}zap") == RedisHashSlot.slot(of: "{bar"))
        #expect(RedisHashSlot.slot(of: "") == 0)
    }

    static let seed = RedisEndpoint(.tcp(host: "10.0.0.9", port: 7000))

    static func node(_ host: String, _ port: Int64) -> RESPValue { .array([.bulk(Array(host.utf8)), .integer(port), .bulk(Array("id".utf8))]) }

    @Test func aClusterSlotsReplyNamesTheMasterOfEverySlot() throws {
        let reply = RESPValue.array([
            .array([.integer(5461), .integer(10922), Self.node("127.0.0.1", 7001), Self.node("127.0.0.1", 7004)]),
            .array([.integer(0), .integer(5460), Self.node("127.0.0.1", 7000), Self.node("127.0.0.1", 7003)]),
            .array([.integer(10923), .integer(16383), Self.node("", 7002)]),
        ])
        let map = try #require(RedisSlotMap(clusterSlots: reply, reachedAt: Self.seed))
        #expect(map.master(of: 0) == RedisEndpoint(.tcp(host: "127.0.0.1", port: 7000)))
        #expect(map.master(of: 5461) == RedisEndpoint(.tcp(host: "127.0.0.1", port: 7001)))
        // A node that announces no host is reached where the client reached the cluster.
        #expect(map.master(of: 16383) == RedisEndpoint(.tcp(host: "10.0.0.9", port: 7002)))
        #expect(map.masters.count == 3)
        #expect(map.nodes.count == 5)
    }

    @Test func aRepliesThatIsNotAMapIsNone() {
        #expect(RedisSlotMap(clusterSlots: .error("ERR This instance has cluster support disabled"), reachedAt: Self.seed) == nil)
        #expect(RedisSlotMap(clusterSlots: .array([.array([.integer(0), .integer(16384), Self.node("h", 1)])]), reachedAt: Self.seed) == nil)
        #expect(RedisSlotMap(clusterSlots: .array([.array([.integer(9), .integer(3), Self.node("h", 1)])]), reachedAt: Self.seed) == nil)
        #expect(RedisSlotMap(clusterSlots: .array([.array([.integer(0), .integer(3), .bulk(nil)])]), reachedAt: Self.seed) == nil)
    }

    @Test func aMovedSlotIsReassignedAloneAndAGapIsFilled() throws {
        let a = RedisEndpoint(.tcp(host: "a", port: 1))
        let b = RedisEndpoint(.tcp(host: "b", port: 2))
        var map = RedisSlotMap(ranges: [.init(slots: 0...99, master: a, replicas: [])])
        map.assign(50, to: b)
        #expect(map.master(of: 49) == a && map.master(of: 50) == b && map.master(of: 51) == a)
        map.assign(200, to: b)
        #expect(map.master(of: 200) == b && map.master(of: 150) == nil)
        map.assign(0, to: b)
        map.assign(99, to: b)
        #expect(map.master(of: 0) == b && map.master(of: 1) == a && map.master(of: 99) == b)
    }

    @Test func redirectionsNameTheirSlotAndNode() {
        #expect(RedisRedirection(.error("MOVED 3999 127.0.0.1:6381"), reachedAt: Self.seed) == .moved(slot: 3999, to: RedisEndpoint(.tcp(host: "127.0.0.1", port: 6381))))
        #expect(RedisRedirection(.error("ASK 3999 [::1]:6381"), reachedAt: Self.seed) == .ask(slot: 3999, to: RedisEndpoint(.tcp(host: "::1", port: 6381))))
        #expect(RedisRedirection(.error("MOVED 3999 :6381"), reachedAt: Self.seed) == .moved(slot: 3999, to: RedisEndpoint(.tcp(host: "10.0.0.9", port: 6381))))
        for other in ["ERR unknown command", "MOVED 16384 h:1", "MOVED x h:1", "MOVED 1 h:0", "MOVED 1 h", "ASK 1 h:1 extra"] {
            #expect(RedisRedirection(.error(other), reachedAt: Self.seed) == nil, "\(other)")
        }
        #expect(RedisRedirection(.simple("MOVED 1 h:1"), reachedAt: Self.seed) == nil)
    }
}
