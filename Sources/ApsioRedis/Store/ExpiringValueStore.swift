/// Values that go by themselves when they are not used for a while (the fleet's sign-ins): in
/// Redis (`RedisExpiringValues`) or in this process, to one contract (`ExpiringValueStoreTests`).
package protocol ExpiringValueStore: Sendable {
    /// The store's clock, in Unix milliseconds, as the server holding `key` reads it.
    func now(on key: String) async throws -> Int64
    /// Keeps `value` under `key` for `idle`, replacing what was there.
    func set(_ key: String, _ value: [UInt8], idle: Duration) async throws
    /// The value (nil when there is none), its `idle` time begun again, and the store's clock.
    func renew(_ key: String, idle: Duration) async throws -> (value: [UInt8]?, nowMs: Int64)
    func delete(_ key: String) async throws
}

/// Sign-ins and the like in Redis: `SET … PX`, `GETEX … PX` with `TIME` in the same round trip.
package struct RedisExpiringValues: ExpiringValueStore {
    let client: RedisClient

    package init(client: RedisClient) {
        self.client = client
    }

    package func now(on key: String) async throws -> Int64 {
        try await RedisTime.now(client, on: key)
    }

    package func set(_ key: String, _ value: [UInt8], idle: Duration) async throws {
        let reply = try await client.send(
            RESPCommand([Array("SET".utf8), Array(key.utf8), value, Array("PX".utf8), Array(String(IndexedDocuments.milliseconds(idle)).utf8)]),
            on: key)
        if case .error(let message) = reply { throw RedisDocuments.UpdateError.unexpectedReply(message) }
    }

    package func renew(_ key: String, idle: Duration) async throws -> (value: [UInt8]?, nowMs: Int64) {
        let replies = try await client.send(
            [RESPCommand("GETEX", key, "PX", String(IndexedDocuments.milliseconds(idle))), RESPCommand("TIME")], on: key)
        return (replies[0].bytes, try RedisTime.milliseconds(replies[1]))
    }

    package func delete(_ key: String) async throws {
        _ = try await client.send(RESPCommand("DEL", key), on: key)
    }
}
