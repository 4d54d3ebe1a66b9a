import Synchronization

/// A continuation resumed exactly once by whichever comes first: the work's result, its deadline,
/// or the task's cancellation, even when cancellation comes before the continuation exists.
final class OneShot<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var result: Result<Value, any Error>?
        var resumed = false
    }

    private let state = Mutex(State())

    func install(_ continuation: CheckedContinuation<Value, any Error>) {
        let early: Result<Value, any Error>? = state.withLock { state in
            if let result = state.result {
                state.resumed = true
                return result
            }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    func settle(_ result: Result<Value, any Error>) {
        let waiting: CheckedContinuation<Value, any Error>? = state.withLock { state in
            guard state.result == nil else { return nil }
            state.result = result
            guard let continuation = state.continuation, !state.resumed else { return nil }
            state.resumed = true
            return continuation
        }
        waiting?.resume(with: result)
    }
}
