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

    private static let queue = DispatchQueue(label: "apsio.readiness", attributes: .concurrent)

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
    private final class Waiter: @unchecked Sendable {
        private let source: any DispatchSourceProtocol
        private let state = Mutex<Result<Outcome, CancellationError>?>(nil)

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
                resume(state.withLock { $0 } ?? .failure(CancellationError()))
            }
            if let timeout {
                let (seconds, attoseconds) = timeout.components
                let nanos = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
                queue.asyncAfter(deadline: .now() + .nanoseconds(max(0, nanos))) { [self] in
                    settle(.success(.timedOut))
                }
            }
            source.activate()
        }

        /// The first caller wins; the source is cancelled once, which resumes the waiter.
        func settle(_ outcome: Result<Outcome, CancellationError>) {
            let first = state.withLock { current -> Bool in
                guard current == nil else { return false }
                current = outcome
                return true
            }
            if first { source.cancel() }
        }
    }
}
