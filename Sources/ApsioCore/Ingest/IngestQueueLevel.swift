/// What waits in an app's queue, as its owner counts it: the records read or made and not yet
/// accepted, the batch in flight included. The delivery holds no records, only these numbers.
package struct IngestQueueLevel: Sendable, Equatable {
    package var records: Int
    package var bytes: Int
    /// When the oldest waiting record was queued; nil when nothing waits.
    package var oldestAt: MonotonicInstant?
    /// When the first waiting record that must go promptly was queued (one saying entries were
    /// lost, `JournalDropRecord`); nil when none waits.
    package var promptSince: MonotonicInstant?

    package init(records: Int, bytes: Int, oldestAt: MonotonicInstant?, promptSince: MonotonicInstant? = nil) {
        self.records = max(records, 0)
        self.bytes = max(bytes, 0)
        self.oldestAt = records > 0 ? oldestAt : nil
        self.promptSince = records > 0 ? promptSince : nil
    }

    package static let empty = IngestQueueLevel(records: 0, bytes: 0, oldestAt: nil)
}
