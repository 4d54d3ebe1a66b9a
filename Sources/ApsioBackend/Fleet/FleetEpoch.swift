import ApsioCore
import ApsioNet
import ApsioRedis
import Synchronization

/// Tells a Redis that lost the fleet's state from one that only dropped a connection.
///
/// Restarted empty: a random value under `apsio:epoch`, set when missing and read on every new
/// connection (a restart always breaks connections), before the connection serves any request. A
/// value that changed means the fleet's state went with it.
///
/// Gone back in time (restored from an older snapshot, or a replica promoted that missed the last
/// writes): the epoch is the old one, and the state looks whole but is stale: sessions that ended
/// run again, viewers who left watch again, people who signed out are signed in again. Every
/// instance bumps `apsio:clock` every 2 s (`INCR`); a number at or below one it has seen means
/// Redis went back. The first instance to see it forgets the stale state (devices and sign-ins,
/// not the audit) and sets a new epoch, in one script that does nothing if the epoch moved
/// already, so the state is forgotten once; then every instance handles it as a restart empty.
final class FleetEpoch: Sendable {
    private struct State {
        var known: String?
        var lost = false
        var highestClock: Int64 = 0
    }
    private let state = Mutex(State())

    /// `RedisClient`'s `prepare`, after the function is loaded.
    func prepare(_ connection: RedisConnection) async throws {
        // A fresh value each time: one that vanished comes back different for every instance.
        let mine = Hex.lowercase(SecureRandom.bytes(16))
        let replies = try await connection.send(
            [RESPCommand("SET", FleetKeys.epoch, mine, "NX"), RESPCommand("GET", FleetKeys.epoch)], deadline: .now + .seconds(5))
        guard let current = replies[1].text else { throw RedisDocuments.UpdateError.unexpectedReply("\(replies[1])") }
        state.withLock { state in
            if let known = state.known, known != current { state.lost = true }
            state.known = current
        }
    }

    /// Whether the state was lost since the last call.
    func takeLost() -> Bool {
        state.withLock { state in
            defer { state.lost = false }
            return state.lost
        }
    }

    /// Bumps the fleet's clock; true when Redis went back in time since this instance last did.
    /// A restart empty goes back too, and is also `takeLost`.
    func tick(_ client: RedisClient) async throws -> Bool {
        let reply = try await client.send(RESPCommand("INCR", FleetKeys.clock))
        guard let clock = reply.integer else { throw RedisDocuments.UpdateError.unexpectedReply("\(reply)") }
        return state.withLock { state in
            // From now on the numbers count from here: it is told once.
            defer { state.highestClock = clock }
            return state.highestClock > 0 && clock <= state.highestClock
        }
    }

    /// The stale state could not be forgotten (Redis went away meanwhile): the next tick sees the
    /// clock gone back again and tries again.
    func retryLater() {
        state.withLock { $0.highestClock = .max }
    }

    /// Forgets the state Redis went back to, unless another instance did already (the epoch is no
    /// longer the one this instance knows); either way, adopts the epoch Redis holds after.
    /// Returns whether this instance forgot it.
    func forgetStaleState(_ client: RedisClient) async throws -> Bool {
        let (known, fresh) = state.withLock { ($0.known ?? "", Hex.lowercase(SecureRandom.bytes(16))) }
        let replies = try await client.send([
            RESPCommand("EVAL", Self.forgetScript, "0", known, fresh), RESPCommand("GET", FleetKeys.epoch),
        ])
        if let current = replies[1].text { state.withLock { $0.known = current } }
        return replies[0].integer == 1
    }

    /// Keys it touches are not declared: this runs on one Redis server, as the fleet does today.
    /// The audit stays: who watched what is kept for its retention whatever happened to Redis.
    static let forgetScript = """
        if redis.call('GET', 'apsio:epoch') ~= ARGV[1] then return 0 end
        for _, pattern in ipairs({'apsio:device:*', 'apsio:signin:*'}) do
          local cursor = '0'
          repeat
            local reply = redis.call('SCAN', cursor, 'MATCH', pattern, 'COUNT', 1000)
            cursor = reply[1]
            for _, key in ipairs(reply[2]) do redis.call('DEL', key) end
          until cursor == '0'
        end
        redis.call('DEL', 'apsio:devices')
        redis.call('SET', 'apsio:epoch', ARGV[2])
        return 1
        """
}
