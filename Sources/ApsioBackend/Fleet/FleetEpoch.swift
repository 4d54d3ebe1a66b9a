import ApsioCore
import ApsioNet
import ApsioRedis
import Synchronization

/// Tells a Redis that lost the fleet's state from one that only dropped a connection.
///
/// Each bucket of devices (`FleetKeys`) is watched on its own, since on a cluster each lives on
/// the master serving its slot, which may restart or fail over without the others.
///
/// Restarted empty: a random value under the bucket's epoch key, set when missing and read every
/// 2 s. A value that changed means the bucket's state went with it.
///
/// Gone back in time (restored from an older snapshot, or a replica promoted that missed the last
/// writes): the epoch is the old one, and the state looks whole but is stale: sessions that ended
/// run again, viewers who left watch again, people who signed out are signed in again. Every
/// instance bumps the bucket's clock every 2 s (`INCR`); a number at or below one it has seen
/// means Redis went back. The first instance to see it forgets the bucket's stale state (devices
/// and sign-ins, not the audit) and sets a new epoch, in one script that does nothing if the epoch
/// moved already, so the state is forgotten once; then every instance handles it as a restart
/// empty.
final class FleetEpoch: Sendable {
    private struct State {
        var known: [String?] = Array(repeating: nil, count: FleetKeys.bucketCount)
        var lost: Set<Int> = []
        var highestClock: [Int64] = Array(repeating: 0, count: FleetKeys.bucketCount)
    }
    private let state = Mutex(State())

    /// Sets each bucket's epoch where it is missing, reads it, and bumps the bucket's clock, in
    /// one round trip to each node. Returns the buckets whose Redis went back in time since this
    /// instance last looked; the ones that restarted empty are `takeLost` (and went back too).
    func tick(_ client: RedisClient) async throws -> Set<Int> {
        // A fresh value each time: one that vanished comes back different for every instance.
        let mine = Hex.lowercase(SecureRandom.bytes(16))
        let buckets = 0..<FleetKeys.bucketCount
        let replies = try await client.sendEach(buckets.flatMap { bucket -> [(key: String?, command: RESPCommand)] in
            let epoch = FleetKeys.epoch(bucket: bucket)
            let clock = FleetKeys.clock(bucket: bucket)
            return [
                (key: epoch, command: RESPCommand("SET", epoch, mine, "NX")), (key: epoch, command: RESPCommand("GET", epoch)),
                (key: clock, command: RESPCommand("INCR", clock)),
            ]
        })
        var read: [(epoch: String, clock: Int64)] = []
        for bucket in buckets {
            guard let epoch = replies[bucket * 3 + 1].text, let clock = replies[bucket * 3 + 2].integer else {
                throw RedisDocuments.UpdateError.unexpectedReply("\(replies[bucket * 3 + 1]) \(replies[bucket * 3 + 2])")
            }
            read.append((epoch, clock))
        }
        return state.withLock { state in
            var back: Set<Int> = []
            for (bucket, now) in read.enumerated() {
                if let known = state.known[bucket], known != now.epoch { state.lost.insert(bucket) }
                state.known[bucket] = now.epoch
                if state.highestClock[bucket] > 0 && now.clock <= state.highestClock[bucket] { back.insert(bucket) }
                // From now on the numbers count from here: it is told once.
                state.highestClock[bucket] = now.clock
            }
            return back
        }
    }

    /// The buckets whose state was lost since the last call.
    func takeLost() -> Set<Int> {
        state.withLock { state in
            defer { state.lost = [] }
            return state.lost
        }
    }

    /// The stale state could not be forgotten (Redis went away meanwhile): the next tick sees the
    /// bucket's clock gone back again and tries again.
    func retryLater(bucket: Int) {
        state.withLock { $0.highestClock[bucket] = .max }
    }

    /// Forgets the state the bucket went back to, unless another instance did already (the
    /// epoch is no longer the one this instance knows); either way, adopts the epoch Redis holds
    /// after. Returns whether this instance forgot it.
    func forgetStaleState(_ client: RedisClient, bucket: Int) async throws -> Bool {
        let (known, fresh) = state.withLock { ($0.known[bucket] ?? "", Hex.lowercase(SecureRandom.bytes(16))) }
        let epoch = FleetKeys.epoch(bucket: bucket)
        let patterns = FleetKeys.stalePatterns(bucket: bucket)
        let replies = try await client.send(
            [
                RESPCommand("EVAL", Self.forgetScript, "2", epoch, FleetKeys.devices(bucket: bucket), known, fresh, patterns[0], patterns[1]),
                RESPCommand("GET", epoch),
            ], on: epoch)
        if let current = replies[1].text { state.withLock { $0.known[bucket] = current } }
        return replies[0].integer == 1
    }

    /// keys: the bucket's epoch and index. args: the epoch known, the new one, and the patterns of
    /// the bucket's documents and sign-ins. Those are found by `SCAN` on the node the bucket's slot
    /// lives on, where all of them are (they carry its tag), and are not declared. The audit stays:
    /// who watched what is kept for its retention whatever happened to Redis.
    static let forgetScript = """
        if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
        for _, pattern in ipairs({ARGV[3], ARGV[4]}) do
          local cursor = '0'
          repeat
            local reply = redis.call('SCAN', cursor, 'MATCH', pattern, 'COUNT', 1000)
            cursor = reply[1]
            for _, key in ipairs(reply[2]) do redis.call('DEL', key) end
          until cursor == '0'
        end
        redis.call('DEL', KEYS[2])
        redis.call('SET', KEYS[1], ARGV[2])
        return 1
        """
}
