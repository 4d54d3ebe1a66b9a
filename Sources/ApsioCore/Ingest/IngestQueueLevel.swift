/// What waits in an app's queue, as its owner counts it: the records read or made and not yet
/// accepted, the batch in flight included. The delivery holds no records, only these numbers.
public struct IngestQueueLevel: Sendable, Equatable {
    public var records: Int
    public var bytes: Int
    /// When the oldest waiting record was queued; nil when nothing waits.
    public var oldestAt: MonotonicInstant?

    public init(records: Int, bytes: Int, oldestAt: MonotonicInstant?) {
        self.records = max(records, 0)
        self.bytes = max(bytes, 0)
        self.oldestAt = records > 0 ? oldestAt : nil
    }

    public static let empty = IngestQueueLevel(records: 0, bytes: 0, oldestAt: nil)
}
