import Synchronization

/// The signals one watcher receives on one connection, in the order the bus delivered them.
///
/// Match handlers run inside the bus loop and may not wait, so they drop messages here and the
/// watcher's own task takes them out. The buffer is bounded: past `capacity`, new messages are
/// dropped and the watcher is told to read its state again, which covers everything dropped.
final class BusInbox: Sendable {
    static let capacity = 1024

    let messages: AsyncStream<BusMessage>
    private let continuation: AsyncStream<BusMessage>.Continuation
    private let overflowed = Atomic<Bool>(false)

    init(capacity: Int = BusInbox.capacity) {
        (messages, continuation) = AsyncStream.makeStream(of: BusMessage.self, bufferingPolicy: .bufferingOldest(capacity))
    }

    func deliver(_ message: BusMessage) {
        if case .dropped = continuation.yield(message) {
            overflowed.store(true, ordering: .releasing)
        }
    }

    /// True once after messages were dropped.
    func takeOverflow() -> Bool {
        overflowed.exchange(false, ordering: .acquiringAndReleasing)
    }

    func finish() {
        continuation.finish()
    }
}
