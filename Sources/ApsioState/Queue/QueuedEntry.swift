/// One record read back from a queue: its payload as appended, the time it was appended with, and
/// the position to acknowledge once the backend accepted it (and everything before it).
package struct QueuedEntry: Sendable, Equatable {
    package let payload: [UInt8]
    package let unixMs: Int64
    package let position: QueuePosition
}
