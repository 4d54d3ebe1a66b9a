import ApsioBackend
import ApsioPOSIX
import ApsioRedis
import ApsioTestSupport
import Testing

/// One contract for the fleet's sign-ins, wherever they are kept: a real `redis-server`
/// (`RedisExpiringValues`) and this process (`MemoryExpiringValues`) run the same checks.
@Suite struct ExpiringValueStoreTests {
    enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case memory, redis
        var testDescription: String { rawValue }
    }

    /// A store of one kind, and a way to let its clock pass an idle time.
    final class Store: Sendable {
        let values: any ExpiringValueStore
        private let server: RedisServerFixture?
        private let client: RedisClient?
        private let clock: ManualAgentClock?

        init(_ kind: Kind) throws {
            switch kind {
            case .memory:
                let clock = ManualAgentClock()
                (self.clock, server, client) = (clock, nil, nil)
                values = MemoryExpiringValues(clock: clock)
            case .redis:
                let server = try RedisServerFixture()
                let client = RedisClient(
                    endpoint: try RedisEndpoint(parsing: server.endpoint), clock: SystemAgentClock(), timeout: .seconds(60))
                (self.server, self.client, clock) = (server, client, nil)
                values = RedisExpiringValues(client: client)
            }
        }

        /// Returns once `idle` has passed on the store's clock for `key`, without using it.
        func pass(_ idle: Duration, of key: String) async throws {
            if let clock {
                clock.advance(by: idle + .milliseconds(1))
            } else if let server {
                try await poll("the idle time to pass in Redis") { try server.cli("EXISTS", key) == "0" }
            }
        }

        /// Whether `key` outlives `duration` from now without being used.
        func outlives(_ key: String, _ duration: Duration) async throws -> Bool {
            if let clock {
                clock.advance(by: duration + .milliseconds(1))
                return try await values.renew(key, idle: .seconds(600)).value != nil
            }
            let server = try #require(server)
            let left = try #require(Int64(try server.cli("PTTL", key)))
            return left > IndexedDocuments.milliseconds(duration)
        }

        func close() { client?.close() }
    }

    @Test(arguments: Kind.allCases)
    func aValueIsReadBackUntilDeleted(_ kind: Kind) async throws {
        let store = try Store(kind)
        defer { store.close() }
        let before = try await store.values.now(on: "signin:1")
        try await store.values.set("signin:1", Array("ann".utf8), idle: .seconds(600))
        let (value, nowMs) = try await store.values.renew("signin:1", idle: .seconds(600))
        #expect(value == Array("ann".utf8))
        #expect(nowMs >= before)
        #expect(try await store.values.renew("signin:2", idle: .seconds(600)).value == nil)
        try await store.values.delete("signin:1")
        #expect(try await store.values.renew("signin:1", idle: .seconds(600)).value == nil)
    }

    @Test(arguments: Kind.allCases)
    func aValueNotUsedForItsIdleTimeIsGone(_ kind: Kind) async throws {
        let store = try Store(kind)
        defer { store.close() }
        try await store.values.set("signin:1", Array("ann".utf8), idle: .milliseconds(50))
        try await store.pass(.milliseconds(50), of: "signin:1")
        #expect(try await store.values.renew("signin:1", idle: .seconds(600)).value == nil)
    }

    @Test(arguments: Kind.allCases)
    func eachUseBeginsTheIdleTimeAgain(_ kind: Kind) async throws {
        let store = try Store(kind)
        defer { store.close() }
        // Idle times far longer than a loaded machine may take between two steps: what is
        // checked is that the use set the new one, not how fast the test runs.
        try await store.values.set("signin:1", Array("ann".utf8), idle: .seconds(30))
        #expect(try await store.values.renew("signin:1", idle: .seconds(600)).value != nil)
        #expect(try await store.outlives("signin:1", .seconds(60)))
    }
}
