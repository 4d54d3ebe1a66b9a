import ApsioCore
package import ApsioPOSIX
import ApsioRedis
import Synchronization

/// `ExpiringValueStore` in this process, on an injected clock: a value past its idle time is gone
/// when next looked at, as in Redis.
package final class MemoryExpiringValues: ExpiringValueStore {
    private let clock: any AgentClock
    /// Past this many, the one that would run out first goes.
    private let maxValues: Int
    private let values = Mutex<[String: (value: [UInt8], expiresMs: Int64)]>([:])

    package init(clock: some AgentClock, maxValues: Int = .max) {
        self.clock = clock
        self.maxValues = maxValues
    }

    package func now(on key: String) async throws -> Int64 { clock.now().wallUnixMs }

    package func set(_ key: String, _ value: [UInt8], idle: Duration) async throws {
        let nowMs = clock.now().wallUnixMs
        values.withLock { values in
            values = values.filter { nowMs < $0.value.expiresMs }
            if values[key] == nil, values.count >= maxValues, let first = values.min(by: { $0.value.expiresMs < $1.value.expiresMs }) {
                values[first.key] = nil
            }
            values[key] = (value, nowMs + IndexedDocuments.milliseconds(idle))
        }
    }

    package func renew(_ key: String, idle: Duration) async throws -> (value: [UInt8]?, nowMs: Int64) {
        let nowMs = clock.now().wallUnixMs
        let value = values.withLock { values -> [UInt8]? in
            guard let kept = values[key], nowMs < kept.expiresMs else {
                values[key] = nil
                return nil
            }
            values[key]!.expiresMs = nowMs + IndexedDocuments.milliseconds(idle)
            return kept.value
        }
        return (value, nowMs)
    }

    package func delete(_ key: String) async throws {
        _ = values.withLock { $0.removeValue(forKey: key) }
    }
}
