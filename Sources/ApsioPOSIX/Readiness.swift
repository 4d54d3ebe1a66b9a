import Dispatch
import Synchronization

/// Waiting for a file descriptor to become readable or writable inside the async runtime, without
/// a thread parked on it and without polling on a timer: the journal's inotify fd, the bus socket
/// and HTTP sockets all wait here.
public enum Readiness {
    public enum Event: Sendable { case readable, writable }

    public enum Outcome: Sendable, Equatable {
        case ready
        case timedOut
    }

    static let queue = DispatchQueue(label: "apsio.readiness", attributes: .concurrent)

    /// Returns `.ready` once `fd` is ready, `.timedOut` after `timeout`, and throws
    /// `CancellationError` as soon as the task is cancelled. It returns only after the dispatch
    /// source is fully torn down, so the caller may close `fd` right after.
    public static func wait(
        _ fd: Int32, for event: Event, timeout: Duration? = nil
    ) async throws(CancellationError) -> Outcome {
        if Task.isCancelled { throw CancellationError() }
        let waiter = Waiter(fd: fd, event: event)
        let result: Result<Outcome, CancellationError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiter.start(timeout: timeout, queue: queue) { continuation.resume(returning: $0) }
            }
        } onCancel: {
            waiter.settle(.failure(CancellationError()))
        }
        return try result.get()
    }

    /// One wait: the first of ready, timeout and cancellation settles it; the continuation is
    /// resumed from the source's cancel handler, after which dispatch no longer touches the fd.
    /// The timeout is a timer of the wait's own, cancelled when the wait settles: a timer left to
    /// fire would keep the wait's objects for the whole timeout (30 s for an HTTP exchange, for
    /// every batch sent) and wake a thread for nothing when it fires.
    final class Waiter: @unchecked Sendable {
        /// Dispatch sources may be used from any thread.
        private struct Timer: @unchecked Sendable {
            let source: any DispatchSourceTimer
        }

        private struct State {
            var outcome: Result<Outcome, CancellationError>?
            var timer: Timer?
        }

        private let source: any DispatchSourceProtocol
        private let state = Mutex(State())

        init(fd: Int32, event: Event) {
            source = switch event {
            case .readable: DispatchSource.makeReadSource(fileDescriptor: fd, queue: Readiness.queue)
            case .writable: DispatchSource.makeWriteSource(fileDescriptor: fd, queue: Readiness.queue)
            }
        }

        func start(
            timeout: Duration?, queue: DispatchQueue,
            resume: @escaping @Sendable (Result<Outcome, CancellationError>) -> Void
        ) {
            source.setEventHandler { [self] in settle(.success(.ready)) }
            source.setCancelHandler { [self] in
                resume(state.withLock { $0.outcome } ?? .failure(CancellationError()))
            }
            if let timeout {
                let (seconds, attoseconds) = timeout.components
                let nanos = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
                let timer = DispatchSource.makeTimerSource(queue: queue)
                timer.schedule(deadline: .now() + .nanoseconds(max(0, nanos)))
                timer.setEventHandler { [self] in settle(.success(.timedOut)) }
                let kept = Timer(source: timer)
                // Settled already (cancelled before it started): the timer is not needed.
                let armed = state.withLock { current -> Bool in
                    guard current.outcome == nil else { return false }
                    current.timer = kept
                    return true
                }
                // Dispatch requires a source to be activated before its last release.
                if !armed { timer.cancel() }
                timer.activate()
            }
            source.activate()
        }

        /// The first caller wins; the timer and then the source are cancelled once, which resumes
        /// the waiter.
        func settle(_ outcome: Result<Outcome, CancellationError>) {
            let (first, timer) = state.withLock { current -> (Bool, Timer?) in
                guard current.outcome == nil else { return (false, nil) }
                current.outcome = outcome
                defer { current.timer = nil }
                return (true, current.timer)
            }
            guard first else { return }
            timer?.source.cancel()
            source.cancel()
        }
    }
}
