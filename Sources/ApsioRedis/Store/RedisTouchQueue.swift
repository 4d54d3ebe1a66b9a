package import ApsioCore
import Synchronization

/// The touches (`IndexedDocuments.Touch`) an instance answered from its copies and has not
/// written yet: the latest of each document, written together a moment later
/// (`RedisIndexedDocuments.writeTouches`). A device's hello then costs Redis a share of one
/// pipelined write instead of a round trip of its own, and the instance no wake-up for the answer.
///
/// Bounded: past `maxPending` documents a touch is written at once, as any change.
package final class RedisTouchQueue: Sendable {
    package struct Pending: Sendable {
        package var member: String
        /// The version the touch was decided on: it is written only while Redis holds that one.
        package var version: String
        package var touch: IndexedDocuments.Touch
        package var again: IndexedDocuments.TouchAgain
        /// Redis's clock when the touch was decided, carried on for `again`.
        package var redisMs: Int64
        package var at: MonotonicInstant

        package func redisMs(at now: MonotonicInstant) -> Int64 {
            RedisDocumentCache.Entry(version: version, bytes: nil, redisMs: redisMs, at: at).redisMs(at: now)
        }
    }

    package let maxPending: Int
    private let pending = Mutex([String: Pending]())
    private let signals: AsyncStream<Void>
    private let signal: AsyncStream<Void>.Continuation

    package init(maxPending: Int) {
        self.maxPending = maxPending
        (signals, signal) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Puts `touch` in the place of any earlier one of `key`; false when full.
    package func add(_ key: String, _ touch: Pending) -> Bool {
        let (added, first) = pending.withLock { pending -> (Bool, Bool) in
            if pending[key] == nil, pending.count >= maxPending { return (false, false) }
            let first = pending.isEmpty
            pending[key] = touch
            return (true, first)
        }
        if first { signal.yield() }
        return added
    }

    /// Every touch waiting, which are no longer.
    package func take() -> [(key: String, pending: Pending)] {
        pending.withLock { pending in
            defer { pending = [:] }
            return pending.map { (key: $0.key, pending: $0.value) }
        }
    }

    package var count: Int { pending.withLock { $0.count } }

    /// Returns once a touch waits, or when the task is cancelled. One caller at a time.
    package func waiting() async {
        var signals = signals.makeAsyncIterator()
        _ = await signals.next()
    }
}
