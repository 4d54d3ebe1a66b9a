/// A place in a record queue: just after one entry. Opaque to callers, who only hand back what
/// `peek` gave them to `acknowledge`.
package struct QueuePosition: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Bumped when damage is cut out of a segment, which moves the offsets after it: a position
    /// taken before that no longer names the same entry and is not acknowledged.
    let epoch: UInt64
    let segment: UInt64
    /// Bytes into the segment file.
    let offset: Int
    /// Entries before `offset` in the segment.
    let ordinal: Int

    /// Within one epoch, queue order; across epochs only `==` means anything to the queue.
    package static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.epoch, lhs.segment, lhs.offset) < (rhs.epoch, rhs.segment, rhs.offset)
    }

    package var description: String { "segment \(segment) offset \(offset)" }
}
