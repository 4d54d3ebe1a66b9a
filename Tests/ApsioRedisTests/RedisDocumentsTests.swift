import ApsioCore
import ApsioPOSIX
@testable import ApsioRedis
import ApsioTestSupport
import Synchronization
import Testing

/// One atomic update per document, as several backend instances make them: read, compute,
/// compare-and-set, again when another instance got there first.
@Suite struct RedisDocumentsTests {
    static func documents(_ server: RedisServerFixture, maxTries: Int = 64) throws -> (RedisClient, RedisDocuments) {
        let client = RedisClient(
            endpoint: try RedisEndpoint(parsing: server.endpoint), clock: SystemAgentClock(), timeout: .seconds(60),
            prepare: RedisDocuments.prepare)
        return (client, RedisDocuments(client: client, maxTries: maxTries))
    }

    static func increment(_ bytes: [UInt8]?) -> (RedisDocuments.Change, Int) {
        let next = (bytes.flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0) + 1
        return (.write(Array(String(next).utf8), lifetime: nil), next)
    }

    @Test func threeInstancesUpdatingOneDocumentLoseNoUpdate() async throws {
        let server = try RedisServerFixture()
        let instances = try (0..<3).map { _ in try Self.documents(server) }
        defer { for (client, _) in instances { client.close() } }
        let seen = try await withThrowingTaskGroup(of: Int.self) { group in
            for (_, documents) in instances {
                // Ten at once on each: more than one device's requests ever are.
                for _ in 0..<10 {
                    group.addTask { try await documents.update("apsio:{demo:1}:device", Self.increment) }
                }
            }
            var seen: [Int] = []
            for try await value in group { seen.append(value) }
            return seen
        }
        // Every update saw the one before it: each value was written once.
        #expect(seen.sorted() == Array(1...30))
        #expect(try await instances[0].1.read("apsio:{demo:1}:device") == Array("30".utf8))
    }

    @Test func anUpdateRacedByAnotherWriterIsComputedAgainOnWhatThatOneWrote() async throws {
        let server = try RedisServerFixture()
        let (client, documents) = try Self.documents(server)
        defer { client.close() }
        _ = try await documents.update("doc") { _ in (.write(Array("1".utf8), lifetime: nil), ()) }
        let runs = Mutex(0)
        let value = try await documents.update("doc") { bytes -> (RedisDocuments.Change, Int) in
            let run = runs.withLock { $0 += 1; return $0 }
            if run == 1 {
                // Another instance writes between this read and this write.
                _ = try? server.cli("HSET", "doc", "v", "someone-else", "d", "41")
            }
            return Self.increment(bytes)
        }
        #expect(runs.withLock { $0 } == 2)
        #expect(value == 42)
        #expect(try await documents.read("doc") == Array("42".utf8))
    }

    @Test func aDocumentStillChangedAfterEveryTryIsReportedAsContended() async throws {
        let server = try RedisServerFixture()
        let (client, documents) = try Self.documents(server, maxTries: 3)
        defer { client.close() }
        let writes = Mutex(0)
        await #expect(throws: RedisDocuments.UpdateError.contended(key: "busy", tries: 3)) {
            try await documents.update("busy") { bytes -> (RedisDocuments.Change, Int) in
                let write = writes.withLock { $0 += 1; return $0 }
                _ = try? server.cli("HSET", "busy", "v", "other-\(write)", "d", "x")
                return Self.increment(bytes)
            }
        }
    }

    @Test func lifetimesAndDeletionAreRedisOwn() async throws {
        let server = try RedisServerFixture()
        let (client, documents) = try Self.documents(server)
        defer { client.close() }
        _ = try await documents.update("presence") { _ in (.write(Array("here".utf8), lifetime: .seconds(85)), ()) }
        let ttl = try #require(Int(try server.cli("PTTL", "presence")))
        #expect((1...85_000).contains(ttl))
        _ = try await documents.update("presence") { _ in (.write(Array("kept".utf8), lifetime: nil), ()) }
        #expect(try server.cli("PTTL", "presence") == "-1")
        _ = try await documents.update("presence") { _ in (.delete, ()) }
        #expect(try server.cli("EXISTS", "presence") == "0")
        #expect(try await documents.read("presence") == nil)
    }

    /// A Redis restarted without persistence has lost the function: it is loaded again on the new
    /// connection, before any request.
    @Test func theFunctionIsLoadedAgainAfterARestartThatLostIt() async throws {
        let server = try RedisServerFixture()
        let clock = ManualAgentClock()
        let client = RedisClient(
            endpoint: try RedisEndpoint(parsing: server.endpoint), clock: clock, timeout: .seconds(60), prepare: RedisDocuments.prepare)
        defer { client.close() }
        let documents = RedisDocuments(client: client)
        #expect(try await documents.update("doc", Self.increment) == 1)
        try server.restart()
        #expect(try server.cli("FUNCTION", "LIST").isEmpty)
        // The broken connection fails one request; the next connects again and loads the function.
        _ = try? await documents.update("doc", Self.increment)
        #expect(try await documents.update("doc", Self.increment) >= 1)
        #expect(try server.cli("FUNCTION", "LIST").contains("apsio_cas"))
    }

    @Test func timeIsRedisClockInUnixMilliseconds() async throws {
        let server = try RedisServerFixture()
        let (client, _) = try Self.documents(server)
        defer { client.close() }
        let now = try await RedisTime.now(client)
        let seconds = try #require(Int64(try server.cli("TIME").split(separator: "\n").first.map(String.init) ?? ""))
        #expect(now / 1000 <= seconds)
        #expect(now > 1_700_000_000_000)
    }
}
