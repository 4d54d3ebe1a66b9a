import ApsioCore
import ApsioPOSIX
@testable import ApsioRedis
import ApsioTestSupport
import Synchronization
import Testing

/// What every document shares in Redis: the function loaded on each connection, a change that
/// stays contended, lifetimes kept by Redis, Redis's clock; and an upgrade beside an instance of
/// an earlier release, whose own library (`apsio`) neither takes the other's function away.
@Suite struct RedisDocumentsTests {
    typealias Indexed = RedisIndexedDocumentsTests

    /// The library an instance of an earlier release loads again on each new connection: its
    /// name is what matters here, not its functions.
    static let earlierReleaseLibrary = """
        #!lua name=apsio
        redis.register_function('apsio_cas_indexed', function(keys, args) return 0 end)
        """

    /// A Redis restarted without persistence has lost the function: it is loaded again on the new
    /// connection, before any request.
    @Test func theFunctionIsLoadedAgainAfterARestartThatLostIt() async throws {
        let server = try RedisServerFixture()
        let (client, documents) = try Indexed.documents(server, clock: ManualAgentClock())
        defer { client.close() }
        #expect(try await documents.update("doc", member: "m", Indexed.increment) == 1)
        try server.restart()
        #expect(try server.cli("FUNCTION", "LIST").isEmpty)
        // The broken connection fails one request; the next connects again and loads the function.
        _ = try? await documents.update("doc", member: "m", Indexed.increment)
        #expect(try await documents.update("doc", member: "m", Indexed.increment) >= 1)
        #expect(try server.cli("FUNCTION", "LIST").contains("apsio_fleet_cas"))
    }

    /// During a rolling upgrade each release loads its own library on each new connection, and
    /// leaves the other's in place.
    @Test func anEarlierReleasesLibraryAndThisOnesStandSideBySide() async throws {
        let server = try RedisServerFixture()
        _ = try server.cli("FUNCTION", "LOAD", Self.earlierReleaseLibrary)
        let (client, documents) = try Indexed.documents(server)
        defer { client.close() }
        _ = try await documents.update("doc", member: "m", Indexed.increment)
        #expect(try server.cli("FUNCTION", "LIST").contains("apsio_cas_indexed"))
        _ = try server.cli("FUNCTION", "LOAD", "REPLACE", Self.earlierReleaseLibrary)
        #expect(try await documents.update("doc", member: "m", Indexed.increment) == 2)
        let libraries = try server.cli("FUNCTION", "LIST")
        #expect(libraries.contains("apsio_cas_indexed") && libraries.contains("apsio_fleet_cas"))
    }

    @Test func aDocumentStillChangedAfterEveryTryIsReportedAsContended() async throws {
        let server = try RedisServerFixture()
        let (client, documents) = try Indexed.documents(server, maxTries: 3)
        defer { client.close() }
        let writes = Mutex(0)
        await #expect(throws: RedisDocuments.UpdateError.contended(key: "busy", tries: 3)) {
            try await documents.update("busy", member: "m") { bytes, nowMs in
                // Another instance writes between each decision and its compare-and-set.
                let write = writes.withLock { $0 += 1; return $0 }
                _ = try? server.cli("HSET", "busy", "v", "other-\(write)", "d", "x")
                return Indexed.increment(bytes, nowMs)
            }
        }
        #expect(writes.withLock { $0 } == 3)
    }

    @Test func lifetimesAreRedisOwn() async throws {
        let server = try RedisServerFixture()
        let (client, documents) = try Indexed.documents(server)
        defer { client.close() }
        try await documents.update("presence", member: "m") { _, nowMs in
            (.write(Array("here".utf8), lifetime: .seconds(85), score: nowMs, publish: []), ())
        }
        let ttl = try #require(Int(try server.cli("PTTL", "presence")))
        #expect((1...85_000).contains(ttl))
    }

    @Test func timeIsRedisClockInUnixMilliseconds() async throws {
        let server = try RedisServerFixture()
        let (client, _) = try Indexed.documents(server)
        defer { client.close() }
        let now = try await RedisTime.now(client)
        let seconds = try #require(Int64(try server.cli("TIME").split(separator: "\n").first.map(String.init) ?? ""))
        #expect(now / 1000 <= seconds)
        #expect(now > 1_700_000_000_000)
    }
}
