import ApsioCore
import ApsioPOSIX
@testable import ApsioRedis
import ApsioTestSupport
import Synchronization
import Testing

/// The client against Debian's redis-server on a private socket: replies paired with their
/// requests under pipelining, deadlines that close the connection, an outage that fails fast and
/// heals by itself, and a server that is not Redis.
@Suite struct RedisClientTests {
    static func client(
        _ server: RedisServerFixture, clock: any AgentClock = SystemAgentClock(), timeout: Duration = .seconds(60),
        limits: RedisConnection.Limits = .init()
    ) throws -> RedisClient {
        RedisClient(endpoint: try RedisEndpoint(parsing: server.endpoint), clock: clock, timeout: timeout, limits: limits)
    }

    @Test func repliesPairWithTheirRequestsWhenManyTasksPipelineAtOnce() async throws {
        let server = try RedisServerFixture()
        let client = try Self.client(server)
        defer { client.close() }
        let counts = try await withThrowingTaskGroup(of: (Int, [RESPValue]).self) { group in
            for index in 0..<300 {
                group.addTask {
                    let replies = try await client.send([
                        RESPCommand("SET", "key:\(index)", "value \(index)"), RESPCommand("GET", "key:\(index)"),
                        RESPCommand("INCR", "counter"),
                    ])
                    return (index, replies)
                }
            }
            var counts: [Int64] = []
            for try await (index, replies) in group {
                #expect(replies[0] == .simple("OK"))
                #expect(replies[1].text == "value \(index)")
                counts.append(try #require(replies[2].integer))
            }
            return counts
        }
        #expect(counts.sorted() == Array(1...300))
        #expect(try server.cli("GET", "counter") == "300")
    }

    @Test func anErrorReplyIsTheCommandsAnswerAndTheConnectionGoesOn() async throws {
        let server = try RedisServerFixture()
        let client = try Self.client(server)
        defer { client.close() }
        let replies = try await client.send([RESPCommand("SET", "k", "v"), RESPCommand("INCR", "k"), RESPCommand("GET", "k")])
        #expect(replies[1] == .error("ERR value is not an integer or out of range"))
        #expect(replies[2].text == "v")
    }

    /// "a timed-out request closes its connection, because a late reply must never answer the
    /// next request"
    @Test func aRequestPastItsDeadlineClosesTheConnectionSoItsLateReplyAnswersNothing() async throws {
        let server = try RedisServerFixture()
        let client = try Self.client(server)
        defer { client.close() }
        _ = try await client.send(RESPCommand("SET", "k", "before"))
        let first = try #require(try await client.send(RESPCommand("CLIENT", "ID")).integer)
        await #expect(throws: RedisError.timedOut) {
            try await client.send(RESPCommand("DEBUG", "SLEEP", "2"), timeout: .milliseconds(300))
        }
        // Redis is busy until the sleep ends (redis-cli waits for that), and its +OK is written
        // then: the next request goes on a new connection and gets its own reply, not that one.
        #expect(try server.cli("PING") == "PONG")
        let reply = try await client.send([RESPCommand("GET", "k"), RESPCommand("CLIENT", "ID")])
        #expect(reply[0].text == "before")
        #expect(try #require(reply[1].integer) != first)
    }

    @Test func aCancelledRequestsReplyIsReadAndDroppedAndTheConnectionIsKept() async throws {
        let server = try RedisServerFixture()
        let client = try Self.client(server)
        defer { client.close() }
        _ = try await client.send(RESPCommand("SET", "k", "kept"))
        let first = try #require(try await client.send(RESPCommand("CLIENT", "ID")).integer)
        // Held by a stopped server, so the cancel surely comes before the reply.
        server.pause()
        let slow = Task { try await client.send(RESPCommand("GET", "k")) }
        try await until("the request waiting", on: [client]) { client.waitingRequests == 1 }
        slow.cancel()
        await #expect(throws: CancellationError.self) { try await slow.value }
        server.resume()
        let reply = try await client.send([RESPCommand("GET", "k"), RESPCommand("CLIENT", "ID")])
        #expect(reply[0].text == "kept")
        #expect(reply[1].integer == first)
    }

    /// Redis down: requests fail at once with when to try again, no connect of their own each,
    /// and the client is back as soon as Redis is and the backoff has passed.
    @Test func anOutageFailsFastWithRetryInAndHealsByItself() async throws {
        let server = try RedisServerFixture()
        let clock = ManualAgentClock()
        let client = try Self.client(server, clock: clock)
        defer { client.close() }
        _ = try await client.send(RESPCommand("SET", "k", "v"))
        server.stop()
        // The connection in use breaks; the reconnect is refused and starts the backoff.
        await #expect { try await client.send(RESPCommand("GET", "k")) } throws: { Self.isUnavailable($0) }
        var retryIn: Duration = .zero
        await #expect {
            try await client.send(RESPCommand("GET", "k"))
        } throws: { error in
            guard case RedisError.unavailable(_, let delay) = error else { return false }
            retryIn = delay
            return delay > .zero
        }
        #expect(!client.isConnected)
        try server.restart()
        clock.advance(by: retryIn)
        // Empty after the restart, as a Redis without persistence is.
        #expect(try await client.send(RESPCommand("GET", "k")) == .bulk(nil))
        #expect(client.isConnected)
    }

    @Test func aServerThatHoldsItsRepliesTimesOutAndIsUsedAgainOnceItAnswers() async throws {
        let server = try RedisServerFixture()
        let client = try Self.client(server)
        defer { client.close() }
        _ = try await client.send(RESPCommand("SET", "k", "v"))
        server.pause()
        await #expect(throws: RedisError.timedOut) { try await client.send(RESPCommand("GET", "k"), timeout: .milliseconds(300)) }
        server.resume()
        #expect(try await client.send(RESPCommand("GET", "k")).text == "v")
    }

    @Test func tooManyWaitingRequestsAreRefusedAtOnce() async throws {
        let server = try RedisServerFixture()
        let client = try Self.client(server, limits: RedisConnection.Limits(maxPending: 2))
        defer { client.close() }
        _ = try await client.send(RESPCommand("SET", "k", "v"))
        server.pause()
        let held = (0..<2).map { _ in Task { try await client.send(RESPCommand("GET", "k")) } }
        try await until("both requests waiting", on: [client]) { client.waitingRequests == 2 }
        await #expect(throws: RedisError.overloaded) { try await client.send(RESPCommand("PING")) }
        server.resume()
        for task in held { #expect(try await task.value.text == "v") }
        #expect(try await client.send(RESPCommand("PING")) == .simple("PONG"))
    }

    @Test func theDatabaseOfTheEndpointIsSelectedOnEveryConnection() async throws {
        let server = try RedisServerFixture()
        let client = RedisClient(endpoint: try RedisEndpoint(parsing: server.endpoint + "?db=3"), clock: SystemAgentClock(), timeout: .seconds(60))
        defer { client.close() }
        _ = try await client.send(RESPCommand("SET", "in-three", "yes"))
        #expect(try server.cli("-n", "3", "GET", "in-three") == "yes")
        #expect(try server.cli("GET", "in-three") == "")
    }

    @Test func overTCPOnLoopback() async throws {
        let server = try RedisServerFixture(tcp: true)
        let client = RedisClient(endpoint: try RedisEndpoint(parsing: "redis://127.0.0.1:\(try #require(server.port))/0"), clock: SystemAgentClock(), timeout: .seconds(60))
        defer { client.close() }
        #expect(try await client.send(RESPCommand("ECHO", "over tcp")).text == "over tcp")
    }

    /// Bytes that are not RESP, or a length past the limits, fail the request and close the
    /// connection: never a crash, a hang, or an allocation of what the peer claims.
    @Test func aServerThatIsNotRedisFailsTheRequestWithAProtocolError() async throws {
        for (answer, expected) in [
            ("HTTP/1.1 400 Bad Request\r\n\r\n", RESPProtocolError.unknownType(UInt8(ascii: "H"))),
            ("$99999999999\r\n", .tooLarge("bulk string")),
            ("*99999999999\r\n", .tooLarge("array")),
        ] {
            let hostile = try HostileRedis(answer: Array(answer.utf8))
            defer { hostile.close() }
            let client = RedisClient(endpoint: RedisEndpoint(.unix(path: hostile.path)), clock: SystemAgentClock(), timeout: .seconds(60))
            defer { client.close() }
            await #expect(throws: RedisError.protocolViolation(expected)) { try await client.send(RESPCommand("GET", "k")) }
        }
    }

    static func isUnavailable(_ error: any Error) -> Bool {
        if case RedisError.unavailable = error { return true }
        return false
    }
}
