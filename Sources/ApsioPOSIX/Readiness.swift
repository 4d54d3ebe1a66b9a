/// Waiting for a file descriptor to become readable or writable inside the async runtime, without
/// a thread parked on each wait and without polling on a timer: the journal's inotify fd, the bus
/// socket and HTTP sockets all wait here, on an `EpollReactor`: the loop whose thread begins the
/// wait (a server's connection), or the process's shared one. A descriptor must stay open while a
/// wait on it is in progress (cancel the wait first).
package enum Readiness {
    package enum Event: Sendable { case readable, writable }

    package enum Outcome: Sendable, Equatable {
        case ready
        case timedOut
    }

    /// Returns `.ready` once `fd` is ready, `.timedOut` after `timeout`, and throws
    /// `CancellationError` as soon as the task is cancelled. It returns only after `fd` is out of
    /// the reactor's set, so the caller may close `fd` right after.
    package static func wait(
        _ fd: Int32, for event: Event, timeout: Duration? = nil
    ) async throws(CancellationError) -> Outcome {
        if Task.isCancelled { throw CancellationError() }
        let waiter = EpollReactor.Waiter(fd: fd, event: event, timeout: timeout)
        // Settled where it began: a task of a loop is resumed by that loop, without a thread
        // woken to hand it over.
        let reactor = EpollReactor.current ?? .shared
        let result: Result<Outcome, CancellationError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                reactor.register(waiter) { continuation.resume(returning: $0) }
            }
        } onCancel: {
            reactor.cancel(waiter)
        }
        return try result.get()
    }

    /// Calls `ready` on the reactor's thread (the loop's, begun on a loop) once `fd` is ready, or with `.timedOut` after
    /// `timeout`: for a reader that only parses what came and hands it on (resuming the tasks
    /// waiting for it), so each reply costs one wake-up, that of the task it is for, not first one
    /// of a task woken to read it. `ready` must be short and never block: every other wait of the
    /// process is settled behind it. `fd` must stay open until `ready` has run.
    package static func onReady(_ fd: Int32, for event: Event, timeout: Duration?, _ ready: @escaping @Sendable (Outcome) -> Void) {
        (EpollReactor.current ?? .shared).register(EpollReactor.Waiter(fd: fd, event: event, timeout: timeout)) { result in
            // Never cancelled: the only failure a wait has.
            ready((try? result.get()) ?? .ready)
        }
    }

    /// Returns after `duration`, or throws `CancellationError` as soon as the task is cancelled:
    /// `Task.sleep` on the reactor's timer. A cancelled `Task.sleep` leaves its dispatch timer to
    /// go off at the original time and wake a thread for nothing; ingest re-arms its timer at
    /// every batch, and this one is gone the moment the sleep ends.
    package static func sleep(for duration: Duration) async throws(CancellationError) {
        _ = try await wait(-1, for: .readable, timeout: max(duration, .zero))
    }

    /// A task executor of the loops, a different one each call: a server's connection runs its
    /// task with it as its preference (`addTask(executorPreference:)`), so that the loop woken for
    /// its bytes runs it, and the default actors it calls.
    package static func nextLoop() -> any TaskExecutor { EpollReactor.nextLoop() }
}
