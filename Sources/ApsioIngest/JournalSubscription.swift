import ApsioPOSIX
package import ApsioPlatform
import Synchronization

/// One app's ingest as the shared journal reader sees it: a hand-over of at most one batch (the
/// reader's, shared with the other apps it holds records of; the cursor is this app's), the
/// app's pull for the next, and whether the app is stalled. The exporter pulls (`next()`) only
/// while its window has room, so a full hand-over is how the reader learns that the app cannot
/// take more now.
///
/// Synchronous on both sides (one lock), so that the exporter can say it stalled from inside its
/// actor, and the reader can offer a batch without waiting for anyone.
package final class JournalSubscription: Sendable {
    private struct State {
        var handOver: JournalBatch?
        var waiter: CheckedContinuation<JournalBatch, any Error>?
        var stalled = true
        var closed = false
        var gaps: [JournalGap] = []
    }

    package let appID: String
    private let state = Mutex(State())
    /// The reader's: bumped whenever the app took a batch, stalled or started again, or left.
    private let changes: ChangeSignal

    init(appID: String, changes: ChangeSignal) {
        self.appID = appID
        self.changes = changes
    }

    // MARK: The exporter's side

    /// The app's next entries, waiting for them. One pull at a time; cancelling it ends the wait.
    package func next() async throws -> JournalBatch {
        let ready = try state.withLock { state throws -> JournalBatch? in
            if state.closed { throw CancellationError() }
            guard state.waiter == nil else { throw JournalError.concurrentRead }
            defer { state.handOver = nil }
            return state.handOver
        }
        if let ready {
            changes.notify()
            return ready
        }
        let batch = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<JournalBatch, any Error>) in
                let now = state.withLock { state -> Result<JournalBatch, any Error>? in
                    if Task.isCancelled || state.closed { return .failure(CancellationError()) }
                    if let handOver = state.handOver {
                        state.handOver = nil
                        return .success(handOver)
                    }
                    state.waiter = continuation
                    return nil
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<JournalBatch, any Error>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
        changes.notify()
        return batch
    }

    /// Whether the app can take nothing for a while (its window is full and nothing is on its way
    /// to the backend, or it may not read at all): the reader stops serving it until it can.
    package func setStalled(_ stalled: Bool) {
        let changed = state.withLock { state -> Bool in
            defer { state.stalled = stalled }
            return state.stalled != stalled
        }
        if changed { changes.notify() }
    }

    /// The app reads no more from this reader. A pull waiting ends with `CancellationError`.
    package func close() {
        let waiter = state.withLock { state -> CheckedContinuation<JournalBatch, any Error>? in
            state.closed = true
            state.handOver = nil
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(throwing: CancellationError())
        changes.notify()
    }

    /// The saved cursors the catch-up reader found gone since the last look.
    package func takeGaps() -> [JournalGap] {
        state.withLock { state in
            defer { state.gaps = [] }
            return state.gaps
        }
    }

    // MARK: The reader's side

    /// Hands a batch over: to the pull waiting, else into the hand-over. False when the app still
    /// has one it has not pulled, or has left.
    func offer(_ batch: JournalBatch) -> Bool {
        let outcome = state.withLock { state -> (taken: Bool, waiter: CheckedContinuation<JournalBatch, any Error>?) in
            guard !state.closed, state.handOver == nil else { return (false, nil) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (true, waiter)
            }
            state.handOver = batch
            return (true, nil)
        }
        outcome.waiter?.resume(returning: batch)
        return outcome.taken
    }

    func reportGaps(_ gaps: [JournalGap]) {
        guard !gaps.isEmpty else { return }
        state.withLock { $0.gaps += gaps }
    }

    /// The app would take a batch now.
    var wantsEntries: Bool { state.withLock { !$0.closed && !$0.stalled && $0.handOver == nil } }
    /// The app has a batch it has not pulled, and is not stalled: it is about to.
    var isBusy: Bool { state.withLock { !$0.closed && !$0.stalled && $0.handOver != nil } }
    var isStalled: Bool { state.withLock { $0.stalled } }
    var isClosed: Bool { state.withLock { $0.closed } }
}
