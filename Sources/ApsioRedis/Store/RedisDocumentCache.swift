package import ApsioCore
import Synchronization

/// What this instance last read or wrote of each document, and Redis's clock when it did: where
/// an update starts without reading first. The compare-and-set keeps it honest: a version that
/// moved meanwhile fails the write, whose answer brings the document as it is. So a device whose
/// requests come to this instance costs one round trip each, not two.
///
/// Bounded by bytes; past the bound, entries go in no particular order (a miss costs a read).
package final class RedisDocumentCache: Sendable {
    package struct Entry: Sendable, Equatable {
        /// "" when there is no document.
        package var version: String
        package var bytes: [UInt8]?
        /// Redis's clock (Unix milliseconds) when the entry was true, on the node that holds it.
        package var redisMs: Int64
        package var at: MonotonicInstant

        /// Redis's clock at `now`: what it read then, and the time passed here since. Behind
        /// Redis by at most the time its answer took to arrive, never ahead of it.
        package func redisMs(at now: MonotonicInstant) -> Int64 {
            redisMs + max(now - at, .zero).wholeMilliseconds
        }

        var cost: Int { version.utf8.count + (bytes?.count ?? 0) + 96 }
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var bytes = 0
    }

    package let maxBytes: Int
    private let state = Mutex(State())

    package init(maxBytes: Int) {
        self.maxBytes = maxBytes
    }

    package func entry(_ key: String) -> Entry? {
        state.withLock { $0.entries[key] }
    }

    package func keep(_ key: String, _ entry: Entry) {
        state.withLock { state in
            let cost = entry.cost + key.utf8.count
            if let old = state.entries.removeValue(forKey: key) { state.bytes -= old.cost + key.utf8.count }
            guard cost <= maxBytes else { return }
            while state.bytes + cost > maxBytes, let victim = state.entries.first {
                state.entries.removeValue(forKey: victim.key)
                state.bytes -= victim.value.cost + victim.key.utf8.count
            }
            state.entries[key] = entry
            state.bytes += cost
        }
    }

    package func forget(_ key: String) {
        state.withLock { state in
            if let old = state.entries.removeValue(forKey: key) { state.bytes -= old.cost + key.utf8.count }
        }
    }

    /// Puts `entry` in the place of what the cache holds of `key`, if that is still `version` with
    /// `bytes`: a write made in the background settles the copy it was decided on, never one a
    /// request has replaced meanwhile.
    package func replace(_ key: String, ifHolding version: String, _ bytes: [UInt8]?, with entry: Entry) {
        state.withLock { state in
            guard let old = state.entries[key], old.version == version, old.bytes == bytes else { return }
            state.entries[key] = entry
            state.bytes += entry.cost - old.cost
        }
    }

    /// Forgets every copy: their next updates read Redis first.
    package func forgetAll() {
        state.withLock { $0 = State() }
    }

    package var count: Int { state.withLock { $0.entries.count } }
    package var bytes: Int { state.withLock { $0.bytes } }
}
