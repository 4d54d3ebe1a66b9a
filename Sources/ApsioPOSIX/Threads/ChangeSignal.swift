import Synchronization

/// Something that can be waited on to change: a runtime's requests in flight, a test double
/// that records what the code under it did, the manual clock tasks sleep on. Whoever waits for a
/// condition re-checks it only when one of these moved, instead of polling on a timer.
package protocol ChangeSource: Sendable {
    /// Marks this moment; the returned wait returns once something changed since the mark (at
    /// once if it already has).
    func markChange() -> @Sendable () async throws -> Void
}

/// A generation counter bumped whenever its owner's state moves, with waiters for the next bump.
/// One lock and no allocation when nobody waits.
package final class ChangeSignal: ChangeSource {
    private struct State {
        var generation: UInt64 = 0
        var waiters: [UInt64: (after: UInt64, continuation: CheckedContinuation<Void, any Error>)] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    package init() {}

    /// Something changed: every waiter re-checks.
    package func notify() {
        let woken = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.generation += 1
            defer { state.waiters.removeAll() }
            return state.waiters.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    package func markChange() -> @Sendable () async throws -> Void {
        let mark = state.withLock { $0.generation }
        return { try await self.changed(after: mark) }
    }

    private func changed(after mark: UInt64) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    if Task.isCancelled || state.generation > mark { return true }
                    state.waiters[id] = (mark, continuation)
                    return false
                }
                if resumeNow {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }
}
