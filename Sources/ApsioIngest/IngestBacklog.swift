import ApsioCore
import ApsioPlatform
import ApsioState

/// What waits for one app's backend (LINUX-PROFILE §12): the journal records read ahead into the
/// window, and the small on-disk record queue of records that are not journal entries (the
/// `diagnostics` command's, a crash seen at start). It makes each batch from both, the record
/// queue's first (a handful a day, each worth more than a log line), and moves exactly past a
/// batch once it was answered.
struct IngestBacklog {
    var window = IngestWindow()
    let queue: RecordQueue
    /// When the record queue's oldest record was queued, as far as this run knows.
    private var queueOldestAt: MonotonicInstant?

    init(queue: RecordQueue, now: MonotonicInstant) {
        self.queue = queue
        if queue.counters.records > 0 { queueOldestAt = now }
    }

    /// One batch: the records it carries, in runs sharing the window's storage, and what it takes
    /// from each side.
    struct Batch {
        var runs: [ArraySlice<IngestRecord>] = []
        /// The last record queue entry it takes.
        var queueThrough: QueuePosition?
        var queueEntries = 0
        var windowRecords = 0
        var records = 0
        /// As the level counts them (the window's estimates, the record queue's entries).
        var bytes = 0
    }

    /// Everything that waits, as `IngestDelivery` is told it.
    var level: IngestQueueLevel {
        let stored = queue.counters
        let oldest = [window.oldestQueuedAt, stored.records > 0 ? queueOldestAt : nil].compactMap { $0 }.min()
        return IngestQueueLevel(
            records: window.count + stored.records, bytes: window.bytes + stored.bytes, oldestAt: oldest,
            promptSince: window.firstPromptQueuedAt)
    }

    mutating func submit(_ payload: [UInt8], at now: LiveNow) throws(RecordQueueError) {
        try queue.append(payload, at: now.wallUnixMs)
        if queueOldestAt == nil { queueOldestAt = now.mono }
    }

    /// The next batch within `limit`. A record queue entry that the policy keeps out (`admit`
    /// answers nil) is in the batch's count but not among its records, so its answer moves past
    /// it; one that cannot be read likewise, reported in `unreadable`. Only records held before the
    /// first policy stop the window's part short, and nothing is sent before it. A record queue
    /// that cannot be read (`queueError`) leaves the window's part to go alone.
    mutating func nextBatch(
        within limit: IngestBatchLimit, now unixMs: Int64, admit: (LogRecord) -> SamplingMark?
    ) -> (batch: Batch, filtered: Int, unreadable: [LogRecordCodecError], queueError: RecordQueueError?) {
        var batch = Batch()
        var filtered = 0
        var unreadable: [LogRecordCodecError] = []
        let entries: [QueuedEntry]
        var queueError: RecordQueueError?
        do {
            entries = try queue.peek(maxBytes: limit.maxBytes, maxCount: limit.maxRecords, now: unixMs)
        } catch {
            entries = []
            queueError = error
        }
        batch.queueThrough = entries.last?.position
        batch.queueEntries = entries.count
        batch.bytes = entries.reduce(0) { $0 + QueueEntryFormat.headerSize + $1.payload.count }
        var queued: [IngestRecord] = []
        for entry in entries {
            do {
                let record = try LogRecordCodec.decode(entry.payload)
                if let mark = admit(record) {
                    queued.append(IngestRecord(record, mark: mark, observedTimeUnixNano: UInt64(max(entry.unixMs, 0)) * 1_000_000))
                } else {
                    filtered += 1
                }
            } catch {
                unreadable.append(error)
            }
        }
        let queuedBytes = queued.reduce(0) { $0 + IngestWindow.estimatedBytes($1.record) }
        let taken = window.prefixCount(
            maxRecords: limit.maxRecords - batch.queueEntries, maxBytes: limit.maxBytes - queuedBytes,
            atLeastOne: batch.queueEntries == 0)
        batch.runs = (queued.isEmpty ? [] : [queued[...]]) + window.front(taken)
        batch.windowRecords = batch.runs.reduce(0) { $0 + $1.count } - queued.count
        batch.records = batch.windowRecords + queued.count
        batch.bytes += window.bytes(ofFirst: batch.windowRecords)
        return (batch, filtered, unreadable, queueError)
    }

    /// Moves past an answered batch: the record queue's part acknowledged, the window's removed.
    /// Returns the journal cursor to save, if the window's part moved it; the window moves even
    /// when the record queue cannot.
    mutating func remove(_ batch: Batch) -> (cursor: String?, queueError: RecordQueueError?) {
        var queueError: RecordQueueError?
        if let through = batch.queueThrough {
            do {
                try queue.acknowledge(through: through)
            } catch {
                queueError = error
            }
            if queue.counters.records == 0 { queueOldestAt = nil }
        }
        return (window.removeFirst(batch.windowRecords), queueError)
    }

    /// Empties both (consent refused, the kill switch). Returns how many records went; the window
    /// empties even when the record queue cannot.
    mutating func dropAll() -> (records: Int, queueError: RecordQueueError?) {
        var records = window.count
        window.removeAll()
        queueOldestAt = nil
        do {
            records += try queue.dropAll()
        } catch {
            return (records, error)
        }
        return (records, nil)
    }
}
