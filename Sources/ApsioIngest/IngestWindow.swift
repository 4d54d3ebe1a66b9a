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
///
/// Records are kept in chunks, one per batch the reader read, and a chunk's records are never
/// changed once it is in the window (only its bookkeeping is). A batch being sent is then a few
/// slices sharing the chunks' storage, handed to the encoder off the exporter's actor without
/// copying a record, while the reader goes on appending chunks.
struct IngestWindow {
    /// What the window knows of each record besides the record itself.
    struct Entry {
        /// Read before the first policy (15.3): the policy decides then; its record's mark means
        /// nothing until.
        var held: Bool
        var bytes: Int
        /// The cursor to save once this record is accepted.
        var cursorAfter: String?
        var queuedAt: MonotonicInstant
        /// A record that says entries were lost (`JournalDropRecord`): it goes out promptly rather
        /// than with the batch's age, so that a gap shows while it matters.
        var prompt = false
    }

    /// Records read together, with their entries, index for index.
    struct Chunk {
        fileprivate(set) var records: [IngestRecord] = []
        fileprivate var entries: [Entry] = []

        init(reservingCapacity capacity: Int = 0) {
            records.reserveCapacity(capacity)
            entries.reserveCapacity(capacity)
        }

        var isEmpty: Bool { records.isEmpty }

        /// Consuming: the record moves into the chunk rather than being copied and the original freed.
        mutating func append(_ record: consuming IngestRecord, _ entry: consuming Entry) {
            records.append(record)
            entries.append(entry)
        }

        /// As `IngestWindow.extendLast`, within the chunk.
        mutating func extendLast(to cursor: String) -> Bool {
            guard !entries.isEmpty else { return false }
            entries[entries.count - 1].cursorAfter = cursor
            return true
        }
    }

    private var chunks: [Chunk] = []
    /// The first record still in the window, in `chunks[0]`: records before it are gone, and the
    /// chunk goes once all of its records are.
    private var start = 0
    private(set) var count = 0
    private(set) var bytes = 0

    var isEmpty: Bool { count == 0 }
    var oldestQueuedAt: MonotonicInstant? { isEmpty ? nil : chunks[0].entries[start].queuedAt }

    /// When the first prompt record still here was queued; nil when none is. A walk from the
    /// front, at most the window's bound, made when the queue's level is reported.
    var firstPromptQueuedAt: MonotonicInstant? {
        var found: MonotonicInstant?
        forEachEntry { _, _, entry in
            if entry.prompt { found = entry.queuedAt }
            return found == nil
        }
        return found
    }

    mutating func append(_ chunk: Chunk) {
        guard !chunk.isEmpty else { return }
        count += chunk.records.count
        bytes += chunk.entries.reduce(0) { $0 + $1.bytes }
        chunks.append(chunk)
    }

    /// Entries that were not delivered come after the last record: accepting it moves past them too.
    /// Returns false when the window is empty, for the caller to save `cursor` itself.
    mutating func extendLast(to cursor: String) -> Bool {
        guard !isEmpty else { return false }
        let last = chunks.count - 1
        chunks[last].entries[chunks[last].entries.count - 1].cursorAfter = cursor
        return true
    }

    /// The window's entries from the front, in order, with their chunk and index.
    private func forEachEntry(_ body: (_ chunk: Int, _ index: Int, _ entry: Entry) -> Bool) {
        for chunk in chunks.indices {
            for index in (chunk == 0 ? start : 0)..<chunks[chunk].entries.count {
                guard body(chunk, index, chunks[chunk].entries[index]) else { return }
            }
        }
    }

    /// How many records from the front fit `maxRecords` and `maxBytes`; with `atLeastOne`, one
    /// record larger than `maxBytes` still goes (the backend's 413 decides its fate).
    func prefixCount(maxRecords: Int, maxBytes: Int, atLeastOne: Bool = true) -> Int {
        var taken = 0
        var size = 0
        forEachEntry { _, _, entry in
            guard taken < maxRecords else { return false }
            if taken > 0 || !atLeastOne, size + entry.bytes > maxBytes { return false }
            taken += 1
            size += entry.bytes
            return true
        }
        return taken
    }

    /// The bytes of the first `n` records.
    func bytes(ofFirst n: Int) -> Int {
        var taken = 0
        var size = 0
        forEachEntry { _, _, entry in
            guard taken < n else { return false }
            taken += 1
            size += entry.bytes
            return true
        }
        return size
    }

    /// Up to `n` records from the front, stopping before the first one still held, as slices of
    /// the chunks' storage (nothing is copied).
    func front(_ n: Int) -> [ArraySlice<IngestRecord>] {
        var runs: [ArraySlice<IngestRecord>] = []
        var runChunk = -1
        var runStart = 0
        var runEnd = 0
        var taken = 0
        forEachEntry { chunk, index, entry in
            guard taken < n, !entry.held else { return false }
            if chunk != runChunk {
                if runChunk >= 0 { runs.append(chunks[runChunk].records[runStart..<runEnd]) }
                (runChunk, runStart) = (chunk, index)
            }
            runEnd = index + 1
            taken += 1
            return true
        }
        if runChunk >= 0 { runs.append(chunks[runChunk].records[runStart..<runEnd]) }
        return runs
    }

    /// Removes `n` records from the front (accepted, or dropped by the backend) and returns the cursor
    /// that may now be saved.
    mutating func removeFirst(_ n: Int) -> String? {
        var left = min(n, count)
        var cursor: String?
        while left > 0 {
            let end = min(chunks[0].entries.count, start + left)
            let first = start
            let (removedBytes, lastCursor) = chunks[0].entries.withUnsafeBufferPointer { entries -> (Int, String?) in
                guard let base = entries.baseAddress else { return (0, nil) }
                var removed = 0
                for index in first..<end { removed += (base + index).pointee.bytes }
                // Only the last cursor counts: looked for from the end, through the pointer, so
                // that no other cursor is copied (and retained) on the way.
                var index = end
                while index > first {
                    index -= 1
                    if (base + index).pointee.cursorAfter != nil { return (removed, (base + index).pointee.cursorAfter) }
                }
                return (removed, nil)
            }
            bytes -= removedBytes
            if let lastCursor { cursor = lastCursor }
            count -= end - start
            left -= end - start
            if end == chunks[0].entries.count {
                chunks.removeFirst()
                start = 0
            } else {
                start = end
            }
        }
        return cursor
    }

    mutating func removeAll() {
        chunks.removeAll()
        start = 0
        count = 0
        bytes = 0
    }

    /// Decides the records held before the first policy: each gets its mark, or leaves the window
    /// when `admit` says it is not sent. Returns the cursor to save when records at the front all
    /// left (nothing before them waits any more), and how many left. Nothing is in flight before
    /// the first policy, so the chunks are rebuilt in place.
    mutating func admitHeld(_ admit: (LogRecord) -> SamplingMark?) -> (cursor: String?, removed: Int) {
        var kept = Chunk()
        var leadingCursor: String?
        var removed = 0
        forEachEntry { chunk, index, entry in
            var record = chunks[chunk].records[index]
            var entry = entry
            if entry.held {
                guard let mark = admit(record.record) else {
                    removed += 1
                    if let after = entry.cursorAfter {
                        if kept.isEmpty {
                            leadingCursor = after
                        } else {
                            kept.entries[kept.entries.count - 1].cursorAfter = after
                        }
                    }
                    return true
                }
                record.mark = mark
                entry.held = false
            }
            kept.append(record, entry)
            return true
        }
        removeAll()
        append(kept)
        return (leadingCursor, removed)
    }

    /// About what a record costs in the OTLP JSON: its body and attributes, and the envelope of
    /// keys, times, the uid and the sampling mark around them. It bounds the window and fills
    /// batches; the backend's 413 settles any batch the estimate got wrong.
    static func estimatedBytes(_ record: LogRecord) -> Int {
        260 + record.body.utf8.count + attributeBytes(record.attributes)
    }

    /// The attributes' share of the estimate, remembered for the array a unit's records share.
    struct AttributeBytes {
        private var seen = AttributeMemo()
        private var bytes = 0

        mutating func of(_ attributes: [Attribute]) -> Int {
            if !seen.isRemembered(attributes) { bytes = IngestWindow.attributeBytes(attributes) }
            return bytes
        }
    }

    /// The same estimate, with the attributes' share remembered for the array a unit's records share.
    static func estimatedBytes(_ record: LogRecord, memo: inout AttributeBytes) -> Int {
        260 + record.body.utf8.count + memo.of(record.attributes)
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
