package import ApsioCore
import ApsioPOSIX
import Synchronization

/// A clock that moves only when told: sleepers wake when `advance` passes their deadline.
/// For tests only (no program ships it); the programs use `SystemAgentClock`.
package final class ManualAgentClock: AgentClock, ChangeSource {
    private struct Sleeper {
        let deadline: MonotonicInstant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: LiveNow
        var sleepers: [UInt64: Sleeper] = [:]
        var nextID: UInt64 = 0

        var deadlines: [MonotonicInstant] { sleepers.values.map(\.deadline).sorted() }
    }

    private let state: Mutex<State>
    /// Bumped whenever a task falls asleep, wakes or is cancelled.
    private let sleepersChanged = ChangeSignal()

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
        while true {
            // Marked before the check, so a change while checking is not missed.
            let changed = sleepersChanged.markChange()
            if condition(deadlines) { return }
            try await changed()
        }
    }

    /// Waits for the next time a task falls asleep, wakes or is cancelled, from the moment of the
    /// call: for a waiter that watches other things besides.
    package func markChange() -> @Sendable () async throws -> Void { sleepersChanged.markChange() }

    /// Returns once at least `count` tasks are asleep on this clock.
    package func asleep(atLeast count: Int) async throws {
        try await asleep { $0.count >= count }
    }

    /// What one `advance` did: how many sleepers it woke, the deadlines of those still asleep
    /// right after, and a wait for what happens next (a woken task sleeping again, say), marked
    /// before any woken task could run.
    package struct Advance: Sendable {
        package let woken: Int
        package let asleep: [MonotonicInstant]
        package let changed: @Sendable () async throws -> Void
    }

    @discardableResult
    package func advance(by duration: Duration) -> Advance {
        let (woken, asleep) = state.withLock { state -> ([Sleeper], [MonotonicInstant]) in
            state.now = state.now.advanced(by: duration)
            let due = state.sleepers.filter { $0.value.deadline <= state.now.mono }
            for id in due.keys { state.sleepers[id] = nil }
            return (Array(due.values), state.deadlines)
        }
        if !woken.isEmpty { sleepersChanged.notify() }
        let changed = sleepersChanged.markChange()
        for sleeper in woken { sleeper.continuation.resume() }
        return Advance(woken: woken.count, asleep: asleep, changed: changed)
    }

    /// Moves the wall clock alone, as an operator or an NTP step does: no sleeper wakes, since
    /// sleepers wait on the monotonic clock.
    package func setWallClock(by offset: Duration) {
        state.withLock { $0.now.wallUnixMs += offset.wholeMilliseconds }
    }

    package func sleep(until deadline: MonotonicInstant) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    if deadline <= state.now.mono || Task.isCancelled { return true }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return false
                }
                if resumeNow {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                } else {
                    sleepersChanged.notify()
                }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
            if sleeper != nil { sleepersChanged.notify() }
        }
    }
}
