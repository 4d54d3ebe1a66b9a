@testable import ApsioRedis
import Testing

@Suite struct RedisEndpointTests {
    @Test func urlsAndSocketPathsAsOperatorsWriteThem() throws {
        #expect(try RedisEndpoint(parsing: "redis://127.0.0.1") == RedisEndpoint(.tcp(host: "127.0.0.1", port: 6379)))
        #expect(try RedisEndpoint(parsing: "redis://cache.internal:6380/2") == RedisEndpoint(.tcp(host: "cache.internal", port: 6380), database: 2))
        #expect(try RedisEndpoint(parsing: "redis://[::1]:7000/") == RedisEndpoint(.tcp(host: "::1", port: 7000)))
        #expect(try RedisEndpoint(parsing: "/run/redis/redis-server.sock") == RedisEndpoint(.unix(path: "/run/redis/redis-server.sock")))
        #expect(try RedisEndpoint(parsing: "/run/redis.sock?db=3") == RedisEndpoint(.unix(path: "/run/redis.sock"), database: 3))
        #expect(try RedisEndpoint(parsing: "redis://[::1]:7000/1").description == "redis://[::1]:7000/1")
    }

    @Test func whatIsNotAnEndpointSaysWhy() {
        for (text, reason) in [
            ("localhost:6379", "expected redis://HOST:PORT/DB"),
            ("redis://:secret@host", "a password in the URL is not accepted"),
            ("redis://host:0", "the port is a number from 1 to 65535"),
            ("redis://host:http", "the port is a number from 1 to 65535"),
            ("redis://host/16", "the database is a number from 0 to 15"),
            ("redis://host/01", "the database is a number from 0 to 15"),
            ("redis://", "no host"),
            ("/run/redis.sock?database=1", "only ?db=N"),
            ("/" + String(repeating: "x", count: 200), "too long"),
        ] {
            #expect {
                try RedisEndpoint(parsing: text)
            } throws: { error in
                (error as? RedisEndpoint.Invalid)?.reason.contains(reason) == true
            }
        }
    }

    @Test func backoffDoublesToItsMaximumAndJittersWithinHalf() {
        let backoff = RedisBackoff(initial: .milliseconds(100), maximum: .seconds(5))
        #expect(backoff.delay(afterFailures: 1, unit: 1) == .milliseconds(100))
        #expect(backoff.delay(afterFailures: 1, unit: 0) == .milliseconds(50))
        #expect(backoff.delay(afterFailures: 4, unit: 1) == .milliseconds(800))
        #expect(backoff.delay(afterFailures: 40, unit: 1) == .seconds(5))
        #expect(backoff.delay(afterFailures: 40, unit: 0) == .milliseconds(2500))
    }
}
