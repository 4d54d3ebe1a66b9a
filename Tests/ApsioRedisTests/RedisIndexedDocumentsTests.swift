import ApsioCore
import ApsioPOSIX
@testable import ApsioRedis
import ApsioTestSupport
import Synchronization
import Testing

/// The fleet's device documents: each instance changes a document it read or wrote last in one
/// round trip, and never decides on a copy another instance has changed since.
@Suite struct RedisIndexedDocumentsTests {
    static func documents(
        _ server: RedisServerFixture, clock: some AgentClock = SystemAgentClock(), cacheBytes: Int = 1 << 20, maxTries: Int = 64
    ) throws -> (RedisClient, RedisIndexedDocuments) {
        let client = RedisClient(
            endpoint: try RedisEndpoint(parsing: server.endpoint), clock: clock, timeout: .seconds(60), prepare: RedisDocuments.prepare)
        return (client, RedisIndexedDocuments(client: client, indexes: ["index"], index: { _ in "index" }, maxTries: maxTries, cacheBytes: cacheBytes, clock: clock))
    }

    static func increment(_ bytes: [UInt8]?, _ nowMs: Int64) -> (RedisIndexedDocuments.Change, Int) {
        let next = (bytes.flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0) + 1
        return (.write(Array(String(next).utf8), lifetime: .seconds(60), score: nowMs, publish: []), next)
    }

    /// How many documents were read apart from a write: each read, and each write, comes with
    /// Redis's clock.
    static func reads(_ server: RedisServerFixture) throws -> Int {
        try calls(server, "time") - calls(server, "fcall")
    }

    static func value(_ bytes: [UInt8]?) -> Int? { bytes.flatMap { Int(String(decoding: $0, as: UTF8.self)) } }

    /// How many times Redis ran `command`, from its own statistics (those functions run count too).
    static func calls(_ server: RedisServerFixture, _ command: String) throws -> Int {
        let stats = try server.cli("INFO", "commandstats")
        guard let line = stats.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix("cmdstat_\(command):") }),
            let field = line.split(separator: ":").last?.split(separator: ",").first(where: { $0.hasPrefix("calls=") })
        else { return 0 }
        return Int(field.dropFirst("calls=".count)) ?? 0
    }

    @Test func aDocumentThisInstanceWroteLastIsChangedAgainWithoutReadingIt() async throws {
        let server = try RedisServerFixture()
        let (client, documents) = try Self.documents(server)
        defer { client.close() }
        for expected in 1...5 {
            #expect(try await documents.update("doc", member: "m", Self.increment) == expected)
        }
        // One read, for the first; then each write went alone.
        #expect(try Self.reads(server) == 1)
        #expect(try Self.calls(server, "fcall") == 5)
        #expect(try server.cli("HGET", "doc", "d") == "5")
        #expect(try server.cli("ZSCORE", "index", "m").isEmpty == false)
    }

    @Test func severalInstancesChangingOneDocumentLoseNoChange() async throws {
        let server = try RedisServerFixture()
        let instances = try (0..<3).map { _ in try Self.documents(server) }
        defer { for (client, _) in instances { client.close() } }
        let seen = try await withThrowingTaskGroup(of: Int.self) { group in
            for round in 0..<10 {
                for (_, documents) in instances {
                    group.addTask {
                        // Ten at once on each, more than one device's requests ever are; now and
                        // then after a pause, so that copies in the caches go stale between turns.
                        if round % 3 == 0 { try await Task.sleep(for: .milliseconds(round)) }
                        return try await documents.update("doc", member: "m", Self.increment)
                    }
                }
            }
            var seen: [Int] = []
            for try await value in group { seen.append(value) }
            return seen
        }
        #expect(seen.sorted() == Array(1...30))
        #expect(try server.cli("HGET", "doc", "d") == "30")
    }

    @Test func aCopyChangedElsewhereIsDecidedAgainOnTheDocumentAsItIs() async throws {
        let server = try RedisServerFixture()
        let (firstClient, first) = try Self.documents(server)
        let (secondClient, second) = try Self.documents(server)
        defer { firstClient.close(); secondClient.close() }
        #expect(try await first.update("doc", member: "m", Self.increment) == 1)
        #expect(try await second.update("doc", member: "m", Self.increment) == 2)
        #expect(try await second.update("doc", member: "m", Self.increment) == 3)
        let seen = Mutex<[Int?]>([])
        let value = try await first.update("doc", member: "m") { bytes, nowMs in
            seen.withLock { $0.append(Self.value(bytes)) }
            return Self.increment(bytes, nowMs)
        }
        // Its own copy first (1), refused; then what the refusal brought back (3): no read between.
        #expect(seen.withLock { $0 } == [1, 3])
        #expect(value == 4)
        #expect(try Self.reads(server) == 2)
    }

    @Test func nothingToChangeIsNeverDecidedOnACopyAlone() async throws {
        let server = try RedisServerFixture()
        let (firstClient, first) = try Self.documents(server)
        let (secondClient, second) = try Self.documents(server)
        defer { firstClient.close(); secondClient.close() }
        _ = try await first.update("doc", member: "m", Self.increment)
        _ = try await second.update("doc", member: "m", Self.increment)
        // A request that only reads (a `next` with nothing to say) must see the other's change.
        let value = try await first.update("doc", member: "m") { bytes, _ in (.keep, Self.value(bytes)) }
        #expect(value == 2)
    }

    @Test func aDeletedDocumentIsMadeAgainFromScratch() async throws {
        let server = try RedisServerFixture()
        let (client, documents) = try Self.documents(server)
        defer { client.close() }
        _ = try await documents.update("doc", member: "m", Self.increment)
        try await documents.update("doc", member: "m") { _, _ in (.delete(publish: []), ()) }
        #expect(try server.cli("EXISTS", "doc") == "0")
        #expect(try server.cli("ZSCORE", "index", "m").isEmpty)
        #expect(try await documents.update("doc", member: "m", Self.increment) == 1)
        // Expired by Redis behind the instance's back: the copy's version fails, and it starts over.
        _ = try server.cli("DEL", "doc")
        #expect(try await documents.update("doc", member: "m", Self.increment) == 1)
    }

    @Test func redisClockGoesOnFromItsLastAnswer() async throws {
        let server = try RedisServerFixture()
        let clock = ManualAgentClock()
        let (client, documents) = try Self.documents(server, clock: clock)
        defer { client.close() }
        let first = try await documents.update("doc", member: "m") { bytes, nowMs in (Self.increment(bytes, nowMs).0, nowMs) }
        clock.advance(by: .seconds(90))
        let second = try await documents.update("doc", member: "m") { bytes, nowMs in (Self.increment(bytes, nowMs).0, nowMs) }
        let redisNow = try await RedisTime.now(client)
        // Ninety seconds on from Redis's clock at the first answer, and never ahead of Redis.
        #expect(second >= first + 90_000)
        #expect(second <= redisNow + 90_000)
    }

    @Test func theCopiesKeptStayWithinTheirBytes() {
        let cache = RedisDocumentCache(maxBytes: 4096)
        for number in 0..<100 {
            cache.keep("doc-\(number)", .init(version: "v", bytes: Array(repeating: 1, count: 200), redisMs: 0, at: .origin))
        }
        #expect(cache.bytes <= 4096)
        #expect(cache.count >= 10)
        // The newest is always kept; one larger than the whole bound is not.
        #expect(cache.entry("doc-99") != nil)
        cache.keep("huge", .init(version: "v", bytes: Array(repeating: 1, count: 8192), redisMs: 0, at: .origin))
        #expect(cache.entry("huge") == nil)
        cache.forget("doc-99")
        #expect(cache.entry("doc-99") == nil)
    }
}
