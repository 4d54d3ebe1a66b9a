import ApsioCore

/// The journal records an app's exporter has read and the backend has not yet accepted, in journal
/// order: the only copy of them in memory. The journal itself is the queue; this is the part of it
/// read ahead, bounded so that a backend that is down, or slower than the app writes, costs a fixed
/// amount of memory (the reader stops while the window is full).
///
/// Each record carries the journal cursor to save once it and everything before it are accepted.
/// Entries between two records that were not delivered (below the policy's floor, a dropped
/// session, a family that is off) move the cursor of the record before them, so that accepting that
/// record also moves past them.
struct IngestWindow {
    struct Item {
        var record: LogRecord
        /// nil while held before the first policy (15.3): the policy decides then.
        var mark: SamplingMark?
        /// When the exporter read it (`observedTimeUnixNano`).
        var observedUnixNano: UInt64
        var bytes: Int
        /// The cursor to save once this record is accepted.
        var cursorAfter: String?
        var queuedAt: MonotonicInstant
    }

    private var items: [Item] = []
    /// The first item still in the window; items before it are gone and compacted away now and then,
    /// so taking from the front costs nothing per record.
    private var start = 0
    private(set) var bytes = 0

    var count: Int { items.count - start }
    var isEmpty: Bool { count == 0 }
    var oldestQueuedAt: MonotonicInstant? { isEmpty ? nil : items[start].queuedAt }

    mutating func append(_ item: Item) {
        items.append(item)
        bytes += item.bytes
    }

    /// Entries that were not delivered come after the last record: accepting it moves past them too.
    /// Returns false when the window is empty, for the caller to save `cursor` itself.
    mutating func extendLast(to cursor: String) -> Bool {
        guard !isEmpty else { return false }
        items[items.count - 1].cursorAfter = cursor
        return true
    }

    /// How many records from the front fit `maxRecords` and `maxBytes`; with `atLeastOne`, one
    /// record larger than `maxBytes` still goes (the backend's 413 decides its fate).
    func prefixCount(maxRecords: Int, maxBytes: Int, atLeastOne: Bool = true) -> Int {
        var taken = 0
        var size = 0
        for index in start..<items.count {
            guard taken < maxRecords else { break }
            let next = items[index].bytes
            if taken > 0 || !atLeastOne, size + next > maxBytes { break }
            taken += 1
            size += next
        }
        return taken
    }

    func front(_ n: Int) -> ArraySlice<Item> { items[start..<(start + min(n, count))] }

    /// Removes `n` records from the front (accepted, or dropped by the backend) and returns the cursor
    /// that may now be saved.
    mutating func removeFirst(_ n: Int) -> String? {
        let n = min(n, count)
        guard n > 0 else { return nil }
        var cursor: String?
        for index in start..<(start + n) {
            bytes -= items[index].bytes
            if let after = items[index].cursorAfter { cursor = after }
        }
        start += n
        if start == items.count {
            items.removeAll(keepingCapacity: true)
            start = 0
        } else if start >= 4096, start * 2 >= items.count {
            items.removeFirst(start)
            start = 0
        }
        return cursor
    }

    mutating func removeAll() {
        items.removeAll()
        start = 0
        bytes = 0
    }

    /// Decides the records held before the first policy: each gets its mark, or leaves the window
    /// when `admit` says it is not sent. Returns the cursor to save when records at the front all
    /// left (nothing before them waits any more), and how many left.
    mutating func admitHeld(_ admit: (LogRecord) -> SamplingMark?) -> (cursor: String?, removed: Int) {
        var kept: [Item] = []
        kept.reserveCapacity(count)
        var leadingCursor: String?
        var removed = 0
        for index in start..<items.count {
            var item = items[index]
            if item.mark == nil {
                if let mark = admit(item.record) {
                    item.mark = mark
                } else {
                    removed += 1
                    if let after = item.cursorAfter {
                        if kept.isEmpty { leadingCursor = after } else { kept[kept.count - 1].cursorAfter = after }
                    }
                    continue
                }
            }
            kept.append(item)
        }
        items = kept
        start = 0
        bytes = kept.reduce(0) { $0 + $1.bytes }
        return (leadingCursor, removed)
    }

    /// About what a record costs in the OTLP JSON: its body and attributes, and the envelope of
    /// keys, times, the uid and the sampling mark around them. It bounds the window and fills
    /// batches; the backend's 413 settles any batch the estimate got wrong.
    static func estimatedBytes(_ record: LogRecord) -> Int {
        260 + record.body.utf8.count + attributeBytes(record.attributes)
    }

    /// The same estimate, with the attributes' share remembered for the array a unit's records share.
    static func estimatedBytes(_ record: LogRecord, memo: inout AttributeMemo<Int>) -> Int {
        260 + record.body.utf8.count + memo.value(for: record.attributes, make: attributeBytes)
    }

    private static func attributeBytes(_ attributes: [Attribute]) -> Int {
        var size = 0
        for attribute in attributes {
            size += 40 + attribute.key.utf8.count
            switch attribute.value {
            case .string(let text): size += text.utf8.count
            case .int, .double, .bool: size += 20
            }
        }
        return size
    }
}
