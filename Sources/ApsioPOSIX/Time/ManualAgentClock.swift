public import ApsioCore
import Synchronization

/// A clock that moves only when told: sleepers wake when `advance` passes their deadline.
/// Used by tests and by simulations; the daemon uses `SystemAgentClock`.
public final class ManualAgentClock: AgentClock {
    private struct Sleeper {
        let deadline: MonotonicInstant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: LiveNow
        var sleepers: [UInt64: Sleeper] = [:]
        var nextID: UInt64 = 0
    }

    private let state: Mutex<State>

    public init(_ start: LiveNow = LiveNow(mono: .origin, wallUnixMs: 1_800_000_000_000)) {
        state = Mutex(State(now: start))
    }

    public func now() -> LiveNow { state.withLock { $0.now } }

    /// How many tasks are asleep on this clock: tests wait for the runtime to settle on it.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    public var earliestDeadline: MonotonicInstant? { state.withLock { $0.sleepers.values.map(\.deadline).min() } }

    public func advance(by duration: Duration) {
        let woken = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let due = state.sleepers.filter { $0.value.deadline <= state.now.mono }
            for id in due.keys { state.sleepers[id] = nil }
            return Array(due.values)
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    /// Moves the wall clock alone, as an operator or an NTP step does: no sleeper wakes, since
    /// sleepers wait on the monotonic clock.
    public func setWallClock(by offset: Duration) {
        let (seconds, attoseconds) = offset.components
        state.withLock { $0.now.wallUnixMs += seconds * 1000 + attoseconds / 1_000_000_000_000_000 }
    }

    public func sleep(until deadline: MonotonicInstant) async throws {
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
                }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }
}
