#if canImport(Glibc)
internal import Glibc
#endif
internal import ApsioPOSIX

/// One app's on-disk queue for records that are not journal entries (diagnostics, crashes seen at
/// start, metrics): append-only with a checksum on every entry, bounded by bytes and age, and
/// read with peek-then-acknowledge so that what was not accepted is sent again.
///
/// Layout: a directory holding segment files (`0000000000000001.seg`, …, see `QueueEntryFormat`
/// for an entry's bytes), `read-position` (the first entry not yet acknowledged, written
/// atomically) and, for a queue opened on its own, `lock` (flock'd while it is open). The daemon
/// opens its queues under its `StateDirectoryLock` instead, one descriptor for every app.
///
/// Durability: `append` returns once its entries are on disk (fdatasync; records are a few a minute
/// at most, and a batch shares one sync). `acknowledge` returns once the new read position is.
/// So a crash after an acknowledgement never sends that batch again, and a crash before it sends
/// again at most what was peeked and not acknowledged.
///
/// Recovery on open: every segment is read and checked. A stretch that is not a whole entry with a
/// good checksum (a torn tail after a crash, flipped bits anywhere) is cut out and counted as one
/// dropped entry, and reading goes on at the next good entry, so damage costs only the entries it
/// touched. Damage found later while reading is treated the same way.
///
/// Not thread-safe: one owner (the app's runtime) calls it.
package final class RecordQueue {
    package let directory: String
    package let bounds: QueueBounds
    /// The queue's own lock, when it was not opened under the state directory's.
    private let ownLock: FileLock?
    private var segments: [QueueSegment] = []
    /// The first entry not acknowledged.
    private var head: QueuePosition
    private var epoch: UInt64 = 0
    /// The highest segment number ever seen here, so a new segment never reuses a name a saved
    /// read position could still refer to.
    private var highestSequence: UInt64 = 0
    /// Open on the last segment once something was appended.
    private var writer: OwnedFileDescriptor?
    private var dropped = 0

    /// Opens the queue in `directory` (creating it, mode 0700), recovering what a crash left.
    ///
    /// `coveredBy`: the state directory's lock, which the caller holds and which keeps every other
    /// daemon out of every queue under it (the daemon closes an app's queue before it serves the
    /// app again). Without it the queue locks `directory/lock` itself.
    package init(
        directory: String, bounds: QueueBounds = .standard, coveredBy stateLock: StateDirectoryLock? = nil
    ) throws(RecordQueueError) {
        self.directory = directory
        self.bounds = bounds
        head = QueuePosition(epoch: 0, segment: 1, offset: 0, ordinal: 0)
        try Self.io { () throws(SystemError) in try FileSystem.makeDirectory(directory, mode: 0o700) }
        if stateLock == nil {
            // A daemon that restarts may find its predecessor still letting go: wait a moment for
            // it, then refuse rather than share the queue.
            guard let lock = try Self.io({ () throws(SystemError) in
                try FileLock.acquire(directory + "/lock", mode: 0o600, timeout: .seconds(2))
            }) else { throw .busy(directory: directory) }
            ownLock = lock
        } else {
            ownLock = nil
        }
        try recover()
    }

    deinit { close() }

    /// Lets go of the segment being appended to and of the lock; the queue is not used after.
    package func close() {
        writer?.close()
        writer = nil
        ownLock?.release()
    }

    package var counters: QueueCounters {
        var counters = QueueCounters(records: 0, bytes: 0, dropped: dropped)
        for segment in segments {
            if segment.sequence > head.segment {
                counters.records += segment.entries
                counters.bytes += segment.bytes
            } else if segment.sequence == head.segment {
                counters.records += segment.entries - head.ordinal
                counters.bytes += segment.bytes - head.offset
            }
        }
        return counters
    }

    // MARK: Appending

    package func append(_ payload: [UInt8], at unixMs: Int64) throws(RecordQueueError) {
        try append(contentsOf: [(payload, unixMs)])
    }

    /// Appends records in order with one sync for all. Nothing is written when one is too large.
    package func append(contentsOf records: [(payload: [UInt8], unixMs: Int64)]) throws(RecordQueueError) {
        let limit = bounds.effectiveMaxEntryBytes
        if let large = records.first(where: { $0.payload.count > limit }) {
            throw .entryTooLarge(bytes: large.payload.count, limit: limit)
        }
        guard !records.isEmpty else { return }
        for record in records {
            let entry = QueueEntryFormat.encode(record.payload, unixMs: record.unixMs)
            if let last = segments.last, last.bytes == 0 || last.bytes + entry.count <= bounds.effectiveSegmentBytes {
                if writer == nil {
                    writer = try Self.io { () throws(SystemError) in
                        try FileSystem.open(path(last.sequence), O_WRONLY | O_APPEND | O_NOFOLLOW)
                    }
                }
            } else {
                try startSegment()
            }
            let index = segments.count - 1
            let segmentPath = path(segments[index].sequence)
            guard let writer else { preconditionFailure("a segment is open for appending") }
            do {
                try FileSystem.writeAll(writer, path: segmentPath, entry)
            } catch {
                // A short write (a full disk) must not leave half an entry for the next append
                // to follow.
                try? FileSystem.truncate(writer, path: segmentPath, to: segments[index].bytes)
                throw .system(error)
            }
            segments[index].bytes += entry.count
            segments[index].entries += 1
            segments[index].newestUnixMs = max(segments[index].newestUnixMs, record.unixMs)
        }
        if let writer, let last = segments.last {
            try Self.io { () throws(SystemError) in try FileSystem.sync(writer, path: path(last.sequence)) }
        }
        try enforceByteBound()
    }

    private func startSegment() throws(RecordQueueError) {
        if let writer, let last = segments.last {
            try Self.io { () throws(SystemError) in try FileSystem.sync(writer, path: path(last.sequence)) }
        }
        writer?.close()
        writer = nil
        let sequence = highestSequence + 1
        let file = try Self.io { () throws(SystemError) in
            try FileSystem.open(path(sequence), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW, mode: 0o600)
        }
        highestSequence = sequence
        segments.append(QueueSegment(sequence: sequence, bytes: 0, entries: 0, newestUnixMs: .min))
        writer = file
        try Self.io { () throws(SystemError) in try FileSystem.syncDirectory(directory) }
    }

    /// Drops whole segments from the front until the queue fits `maxBytes`; the one taking appends
    /// stays.
    private func enforceByteBound() throws(RecordQueueError) {
        var total = segments.reduce(0) { $0 + $1.bytes }
        while total > bounds.maxBytes, segments.count > 1 {
            total -= segments[0].bytes
            try dropFirstSegment()
        }
    }

    private func dropFirstSegment() throws(RecordQueueError) {
        let segment = segments.removeFirst()
        dropped += unacknowledged(in: segment)
        try Self.io { () throws(SystemError) in try FileSystem.removeFile(path(segment.sequence)) }
        normalizeHead()
    }

    private func unacknowledged(in segment: QueueSegment) -> Int {
        if segment.sequence > head.segment { return segment.entries }
        if segment.sequence == head.segment { return segment.entries - head.ordinal }
        return 0
    }

    // MARK: Reading

    /// The entries after the last acknowledged one, oldest first: at most `maxCount`, and no more
    /// payload bytes than `maxBytes` except that the first entry is always given (else one large
    /// entry would block the queue). Entries at the front older than the age bound at `unixMs` are
    /// dropped first and counted. Peeking again without acknowledging gives the same entries.
    package func peek(maxBytes: Int, maxCount: Int, now unixMs: Int64) throws(RecordQueueError) -> [QueuedEntry] {
        guard maxCount > 0 else { return [] }
        // Damage found while reading is cut out and the read tried again; a disk that returns
        // different bytes every time is not worth looping on.
        for _ in 0..<3 {
            switch try read(maxBytes: maxBytes, maxCount: maxCount, now: unixMs) {
            case .entries(let entries): return entries
            case .damaged(let index): try repairSegment(at: index)
            }
        }
        throw .system(SystemError("read(\(directory))", errno: EIO))
    }

    private enum ReadOutcome {
        case entries([QueuedEntry])
        case damaged(segmentIndex: Int)
    }

    private func read(maxBytes: Int, maxCount: Int, now unixMs: Int64) throws(RecordQueueError) -> ReadOutcome {
        let cutoff = unixMs - bounds.maxAgeMilliseconds
        normalizeHead()
        try removeConsumedSegments()
        // Segments entirely too old go unread; the last one stays open for appends.
        while segments.count > 1, segments[0].newestUnixMs < cutoff {
            try dropFirstSegment()
        }
        var entries: [QueuedEntry] = []
        var payloadBytes = 0
        var newHead = head
        var outcome: ReadOutcome?
        scan: for index in segments.indices where segments[index].sequence >= head.segment {
            let segment = segments[index]
            var reader = try Self.io { () throws(SystemError) in try SegmentReader(path: path(segment.sequence)) }
            defer { reader.close() }
            var offset = segment.sequence == head.segment ? head.offset : 0
            var ordinal = segment.sequence == head.segment ? head.ordinal : 0
            while offset < segment.bytes {
                guard let header = try Self.io({ () throws(SystemError) in
                    try QueueEntryFormat.validEntry(in: &reader, at: offset)
                }), offset + header.size <= segment.bytes else {
                    outcome = .damaged(segmentIndex: index)
                    break scan
                }
                let end = offset + header.size
                if entries.isEmpty, header.unixMs < cutoff {
                    dropped += 1
                    newHead = QueuePosition(epoch: epoch, segment: segment.sequence, offset: end, ordinal: ordinal + 1)
                } else {
                    if entries.count >= maxCount || (!entries.isEmpty && payloadBytes + header.payloadLength > maxBytes) {
                        break scan
                    }
                    let start = offset + QueueEntryFormat.headerSize
                    guard let payload = try Self.io({ () throws(SystemError) in
                        try reader.bytes(at: start, count: header.payloadLength)
                    }) else {
                        outcome = .damaged(segmentIndex: index)
                        break scan
                    }
                    let position = QueuePosition(epoch: epoch, segment: segment.sequence, offset: end, ordinal: ordinal + 1)
                    entries.append(QueuedEntry(payload: Array(payload), unixMs: header.unixMs, position: position))
                    payloadBytes += header.payloadLength
                }
                offset = end
                ordinal += 1
            }
        }
        if newHead != head {
            head = newHead
            try saveHead()
            normalizeHead()
            try removeConsumedSegments()
        }
        return outcome ?? .entries(entries)
    }

    /// Marks everything up to and including the entry `position` came with as accepted, durably.
    /// A position from before damage was cut out of the queue is ignored (its entries will be
    /// peeked again), as is one already acknowledged.
    package func acknowledge(through position: QueuePosition) throws(RecordQueueError) {
        guard position.epoch == epoch, position > head else { return }
        guard let segment = segments.first(where: { $0.sequence == position.segment }), position.offset <= segment.bytes
        else { throw .unknownPosition(position) }
        head = position
        try saveHead()
        normalizeHead()
        try removeConsumedSegments()
    }

    /// Removes every entry (consent withdrawn, kill switch) and returns how many there were.
    @discardableResult
    package func dropAll() throws(RecordQueueError) -> Int {
        let count = counters.records
        writer?.close()
        writer = nil
        highestSequence += 1
        head = QueuePosition(epoch: epoch, segment: highestSequence, offset: 0, ordinal: 0)
        // The position first: a crash part-way leaves only files it has already passed, which the
        // next open removes.
        try saveHead()
        for segment in segments {
            try Self.io { () throws(SystemError) in try FileSystem.removeFile(path(segment.sequence)) }
        }
        segments = []
        return count
    }

    // MARK: The read position

    /// Moves the head past segments that no longer exist or that it has read to the end, except
    /// the last one, which appends continue.
    private func normalizeHead() {
        while let index = segments.firstIndex(where: { $0.sequence >= head.segment }) {
            if segments[index].sequence > head.segment {
                head = QueuePosition(epoch: epoch, segment: segments[index].sequence, offset: 0, ordinal: 0)
            }
            guard head.offset >= segments[index].bytes, index < segments.count - 1 else { return }
            head = QueuePosition(epoch: epoch, segment: segments[index + 1].sequence, offset: 0, ordinal: 0)
        }
    }

    private func removeConsumedSegments() throws(RecordQueueError) {
        while let first = segments.first, first.sequence < head.segment {
            segments.removeFirst()
            try Self.io { () throws(SystemError) in try FileSystem.removeFile(path(first.sequence)) }
        }
    }

    private var positionPath: String { directory + "/read-position" }

    private func saveHead() throws(RecordQueueError) {
        let text = "1 \(head.segment) \(head.offset)\n"
        try Self.io { () throws(SystemError) in try AtomicFile.write(Array(text.utf8), to: positionPath, mode: 0o600) }
    }

    /// The saved position, or nil when there is none or it is not one we wrote: then everything
    /// on disk is sent again, which a backend can drop as duplicates, rather than lost.
    private func loadHead() throws(RecordQueueError) -> (segment: UInt64, offset: Int)? {
        let read: [UInt8]?
        do {
            read = try AtomicFile.read(positionPath, maxBytes: 256)
        } catch where error.errno == EFBIG {
            // Longer than any position written here: as much not ours as a short garbled one.
            return nil
        } catch {
            throw .system(error)
        }
        guard let bytes = read else { return nil }
        let fields = String(decoding: bytes, as: UTF8.self).split(separator: " ")
        guard fields.count == 3, fields[0] == "1", fields[2].last == "\n",
            let segment = UInt64(fields[1]), segment <= QueueSegment.maxSequence,
            let offset = Int(fields[2].dropLast()), offset >= 0
        else { return nil }
        return (segment, offset)
    }

    // MARK: Recovery

    private func recover() throws(RecordQueueError) {
        let names = try Self.io { () throws(SystemError) in try FileSystem.names(in: directory) } ?? []
        // A rewrite or a position write cut short by a crash; the file it was replacing is intact.
        for name in names where name.hasSuffix(".tmp") {
            try Self.io { () throws(SystemError) in try FileSystem.removeFile(directory + "/" + name) }
        }
        let sequences = names.compactMap(QueueSegment.sequence(fromFileName:)).sorted()
        let saved = try loadHead()
        highestSequence = max(sequences.last ?? 0, saved?.segment ?? 0)
        head = QueuePosition(epoch: epoch, segment: saved?.segment ?? 0, offset: saved?.offset ?? 0, ordinal: 0)
        var headMoved = false
        for sequence in sequences {
            if sequence < head.segment {
                // Acknowledged before the last stop; its removal did not happen.
                try Self.io { () throws(SystemError) in try FileSystem.removeFile(path(sequence)) }
                continue
            }
            let headOffset = sequence == head.segment ? head.offset : nil
            let recovered = try recoverSegment(sequence, headOffset: headOffset)
            if let segment = recovered.segment { segments.append(segment) }
            if let moved = recovered.head {
                headMoved = headMoved || moved.offset != head.offset
                head = QueuePosition(epoch: epoch, segment: sequence, offset: moved.offset, ordinal: moved.ordinal)
            }
        }
        if headMoved { try saveHead() }
        normalizeHead()
    }

    /// Runs the recovery scan on a segment found damaged while reading.
    private func repairSegment(at index: Int) throws(RecordQueueError) {
        let sequence = segments[index].sequence
        if index == segments.count - 1 {
            writer?.close()
            writer = nil
        }
        let recovered = try recoverSegment(sequence, headOffset: sequence == head.segment ? head.offset : nil)
        epoch += 1
        if let segment = recovered.segment {
            segments[index] = segment
        } else {
            segments.remove(at: index)
        }
        if let moved = recovered.head {
            head = QueuePosition(epoch: epoch, segment: sequence, offset: moved.offset, ordinal: moved.ordinal)
            try saveHead()
        } else {
            head = QueuePosition(epoch: epoch, segment: head.segment, offset: head.offset, ordinal: head.ordinal)
        }
        normalizeHead()
    }

    /// Reads a whole segment, keeps its good entries and cuts out the rest, counting each damaged
    /// stretch past `headOffset` as one dropped entry. Returns the segment as it now is (nil when
    /// nothing good was left and the file is gone) and, when the head lies in it, where the head
    /// now is.
    private func recoverSegment(
        _ sequence: UInt64, headOffset: Int?
    ) throws(RecordQueueError) -> (segment: QueueSegment?, head: (offset: Int, ordinal: Int)?) {
        let segmentPath = path(sequence)
        var reader = try Self.io { () throws(SystemError) in try SegmentReader(path: segmentPath) }
        defer { reader.close() }
        var entries: [Range<Int>] = []
        var damaged: [Range<Int>] = []
        var newest = Int64.min
        var offset = 0
        while offset < reader.size {
            if let header = try Self.io({ () throws(SystemError) in try QueueEntryFormat.validEntry(in: &reader, at: offset) }) {
                entries.append(offset..<(offset + header.size))
                newest = max(newest, header.unixMs)
                offset += header.size
                continue
            }
            var next: Int?
            var candidate = offset + 1
            while let found = try Self.io({ () throws(SystemError) in try reader.nextMagic(from: candidate) }) {
                if try Self.io({ () throws(SystemError) in try QueueEntryFormat.validEntry(in: &reader, at: found) }) != nil {
                    next = found
                    break
                }
                candidate = found + 1
            }
            damaged.append(offset..<(next ?? reader.size))
            offset = next ?? reader.size
        }

        var head: (offset: Int, ordinal: Int)?
        if let headOffset {
            let consumed = entries.prefix { $0.lowerBound < headOffset }
            head = (consumed.reduce(0) { $0 + $1.count }, consumed.count)
        }
        dropped += damaged.filter { $0.upperBound > (headOffset ?? 0) }.count

        let goodBytes = entries.reduce(0) { $0 + $1.count }
        let segment = QueueSegment(sequence: sequence, bytes: goodBytes, entries: entries.count, newestUnixMs: newest)
        if damaged.isEmpty { return (segment, head) }
        if entries.isEmpty {
            try Self.io { () throws(SystemError) in try FileSystem.removeFile(segmentPath) }
            return (nil, head)
        }
        if damaged.count == 1, damaged[0].lowerBound == goodBytes {
            // Only a tail to cut: what comes before it keeps its offsets.
            let file = try Self.io { () throws(SystemError) in try FileSystem.open(segmentPath, O_WRONLY | O_NOFOLLOW) }
            defer { file.close() }
            try Self.io { () throws(SystemError) in
                try FileSystem.truncate(file, path: segmentPath, to: goodBytes)
                try FileSystem.sync(file, path: segmentPath)
            }
            return (segment, head)
        }
        var kept: [UInt8] = []
        kept.reserveCapacity(goodBytes)
        for range in entries {
            guard let bytes = try Self.io({ () throws(SystemError) in try reader.bytes(at: range.lowerBound, count: range.count) })
            else { throw .system(SystemError("read(\(segmentPath))", errno: EIO)) }
            kept.append(contentsOf: bytes)
        }
        try Self.io { () throws(SystemError) in try AtomicFile.write(kept, to: segmentPath, mode: 0o600) }
        return (segment, head)
    }

    private func path(_ sequence: UInt64) -> String { directory + "/" + QueueSegment.fileName(sequence) }

    private static func io<T>(_ body: () throws(SystemError) -> T) throws(RecordQueueError) -> T {
        do { return try body() } catch { throw .system(error) }
    }
}
