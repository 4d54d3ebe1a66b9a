import ApsioCore
import ApsioNet
import ApsioRedis
import Synchronization

/// Tells a Redis that restarted empty from one that only dropped a connection: a random value
/// under `apsio:epoch`, set when missing and read on every new connection (a restart always
/// breaks connections), before the connection serves any request. A value that changed means the
/// fleet's state went with it.
final class FleetEpoch: Sendable {
    private struct State {
        var known: String?
        var lost = false
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
}
