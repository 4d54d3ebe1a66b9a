/// One segment file of a record queue, as the queue keeps it in memory: no entry index, only what
/// the counters and the bounds need.
struct QueueSegment {
    let sequence: UInt64
    var bytes: Int
    var entries: Int
    /// The latest time among its entries: a segment whose newest entry is too old expires whole,
    /// unread.
    var newestUnixMs: Int64

    var fileName: String { Self.fileName(sequence) }

    static func fileName(_ sequence: UInt64) -> String {
        let hex = String(sequence, radix: 16)
        return String(repeating: "0", count: max(0, 16 - hex.count)) + hex + ".seg"
    }

    /// The highest segment number a queue uses. Segments are numbered up from 1, one for every few
    /// hundred KiB appended, so no queue comes near it; a larger number in a file name or the read
    /// position comes from damage or another program, and counting on from it would overflow.
    static let maxSequence: UInt64 = 1 << 62

    /// The sequence a file name gives, nil for any other file (one numbered past `maxSequence`
    /// included: it is not one of ours, and is left alone).
    static func sequence(fromFileName name: String) -> UInt64? {
        guard name.utf8.count == 20, name.hasSuffix(".seg") else { return nil }
        let hex = name.prefix(16)
        guard hex.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
            let sequence = UInt64(hex, radix: 16), sequence <= maxSequence
        else { return nil }
        return sequence
    }
}
