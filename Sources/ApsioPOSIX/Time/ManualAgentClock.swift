package import ApsioCore
import Synchronization

/// A clock that moves only when told: sleepers wake when `advance` passes their deadline.
/// Used by tests and by simulations; the daemon uses `SystemAgentClock`.
package final class ManualAgentClock: AgentClock {
    private struct Sleeper {
        let deadline: MonotonicInstant
        let continuation: CheckedContinuation<Void, any Error>
    }

    /// A task waiting for the sleepers to be as it needs (`asleep`).
    private struct Watcher {
        let condition: @Sendable ([MonotonicInstant]) -> Bool
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: LiveNow
        var sleepers: [UInt64: Sleeper] = [:]
        var watchers: [UInt64: Watcher] = [:]
        var nextID: UInt64 = 0

        var deadlines: [MonotonicInstant] { sleepers.values.map(\.deadline).sorted() }

        /// The watchers whose condition the sleepers now meet, taken out to be resumed.
        mutating func satisfiedWatchers() -> [Watcher] {
            guard !watchers.isEmpty else { return [] }
            let deadlines = deadlines
            let met = watchers.filter { $0.value.condition(deadlines) }
            for id in met.keys { watchers[id] = nil }
            return Array(met.values)
        }
    }

    private let state: Mutex<State>

    package init(_ start: LiveNow = LiveNow(mono: .origin, wallUnixMs: 1_800_000_000_000)) {
        state = Mutex(State(now: start))
    }

    package func now() -> LiveNow { state.withLock { $0.now } }

    /// How many tasks are asleep on this clock: tests wait for the runtime to settle on it.
    package var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    package var earliestDeadline: MonotonicInstant? { state.withLock { $0.sleepers.values.map(\.deadline).min() } }

    /// The deadlines of the tasks asleep on this clock, in order.
    package var deadlines: [MonotonicInstant] { state.withLock { $0.deadlines } }

    /// Returns once the deadlines of the tasks asleep on this clock, in order, meet `condition`:
    /// how a test waits for the code under it to be idle on the clock (everything it does next
    /// waits for time to pass) instead of polling. Checked now and whenever a task falls asleep
    /// or wakes. Cancellable, so a test's own time limit can end it.
    package func asleep(_ condition: @escaping @Sendable (_ deadlines: [MonotonicInstant]) -> Bool) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    if Task.isCancelled || condition(state.deadlines) { return true }
                    state.watchers[id] = Watcher(condition: condition, continuation: continuation)
                    return false
                }
                if resumeNow {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                }
            }
        } onCancel: {
            let watcher = state.withLock { $0.watchers.removeValue(forKey: id) }
            watcher?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Returns once at least `count` tasks are asleep on this clock.
    package func asleep(atLeast count: Int) async throws {
        try await asleep { $0.count >= count }
    }

    /// What one `advance` did: how many sleepers it woke, and the deadlines of those still asleep
    /// right after, before any woken task could sleep again.
    package struct Advance: Sendable {
        package let woken: Int
        package let asleep: [MonotonicInstant]
    }

    @discardableResult
    package func advance(by duration: Duration) -> Advance {
        let (woken, satisfied, asleep) = state.withLock { state -> ([Sleeper], [Watcher], [MonotonicInstant]) in
            state.now = state.now.advanced(by: duration)
            let due = state.sleepers.filter { $0.value.deadline <= state.now.mono }
            for id in due.keys { state.sleepers[id] = nil }
            return (Array(due.values), due.isEmpty ? [] : state.satisfiedWatchers(), state.deadlines)
        }
        for sleeper in woken { sleeper.continuation.resume() }
        for watcher in satisfied { watcher.continuation.resume() }
        return Advance(woken: woken.count, asleep: asleep)
    }

    /// Moves the wall clock alone, as an operator or an NTP step does: no sleeper wakes, since
    /// sleepers wait on the monotonic clock.
    package func setWallClock(by offset: Duration) {
        let (seconds, attoseconds) = offset.components
        state.withLock { $0.now.wallUnixMs += seconds * 1000 + attoseconds / 1_000_000_000_000_000 }
    }

    package func sleep(until deadline: MonotonicInstant) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resumeNow, satisfied) = state.withLock { state -> (Bool, [Watcher]) in
                    if deadline <= state.now.mono || Task.isCancelled { return (true, []) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return (false, state.satisfiedWatchers())
                }
                for watcher in satisfied { watcher.continuation.resume() }
                if resumeNow {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                }
            }
        } onCancel: {
            let (sleeper, satisfied) = state.withLock { state -> (Sleeper?, [Watcher]) in
                let sleeper = state.sleepers.removeValue(forKey: id)
                return (sleeper, sleeper == nil ? [] : state.satisfiedWatchers())
            }
            sleeper?.continuation.resume(throwing: CancellationError())
            for watcher in satisfied { watcher.continuation.resume() }
        }
    }
}
