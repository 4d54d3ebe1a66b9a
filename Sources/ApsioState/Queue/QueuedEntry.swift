/// One record read back from a queue: its payload as appended, the time it was appended with, and
/// the position to acknowledge once the backend accepted it (and everything before it).
public struct QueuedEntry: Sendable, Equatable {
    public let payload: [UInt8]
    public let unixMs: Int64
    public let position: QueuePosition
}
