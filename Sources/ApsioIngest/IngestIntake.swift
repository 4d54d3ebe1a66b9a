import ApsioCore
import ApsioRedaction

/// How one app's journal entries enter its window: through its `RateLimit=` (by their own journal
/// times), each kept one redacted (on the box, before anything else sees it), then through the
/// policy's gate, with the size it will cost a batch.
struct IngestIntake {
    private var redaction: RedactionStream
    private var attributeBytes = IngestWindow.AttributeBytes()
    /// nil without `RateLimit=`.
    private var limiter: RateLimiter?
    private let unit: String

    init(redactor: Redactor, limits: Limits, rateLimit: IngestRateLimit? = nil, unit: String = "") {
        redaction = RedactionStream(redactor: redactor, limits: limits)
        limiter = rateLimit.map(RateLimiter.init)
        self.unit = unit
    }

    /// What one `take` or `placeDrops` did besides filling the window.
    struct Taken: Equatable {
        /// Records the policy kept out.
        var filtered = 0
        /// Entries `RateLimit=` dropped.
        var rateLimited = 0
        /// The cursor to save now: nothing waits before it any more.
        var passed: String?
    }

    /// Takes the app's part of a batch the reader read, ending at journal cursor `through`.
    /// `holding` before the first policy: every record is then held in the window until it comes
    /// (15.3), and `admit` is not asked. Records kept out move the cursor of the record before
    /// them, or, with nothing before them in the window, the saved one (`passed`). Entries the
    /// rate limit drops move no cursor until the record standing for them is in the window
    /// (`RateLimiter`): it is placed before a later kept entry, or here at the end when the window
    /// holds nothing else (so that a unit that falls quiet after a flood does not hold it back).
    mutating func take(
        _ part: consuming [LogRecord], through: String?, into window: inout IngestWindow, now: LiveNow,
        holding: Bool, admit: (LogRecord) -> SamplingMark?
    ) -> Taken {
        var taken = Taken()
        // Popped from the end of the reversed part: each record is moved out, not copied, when (as
        // from the catch-up reader) nobody else holds the part. Reversed through its buffer, whose
        // swaps move memory: `Array.reverse()` copies both records of each swap, a retain and a
        // release for each of their strings.
        var part = part
        part.withUnsafeMutableBufferPointer { $0.reverse() }
        var chunk = IngestWindow.Chunk(reservingCapacity: part.count)
        while var record = part.popLast() {
            // apsiod's own record of what was dropped or lost is never limited: it says what was lost.
            if limiter != nil, !JournalDropRecord.isDropRecord(record) {
                switch limiter?.decide(timeUnixNano: record.timeUnixNano, cursor: record.journalCursor) {
                case .drop:
                    taken.rateLimited += 1
                    continue
                case .keep(let report?):
                    place(report, into: &chunk, window: &window, now: now, holding: holding, admit: admit, taken: &taken)
                case .keep(nil), nil:
                    break
                }
            }
            redaction.redact(&record)
            // Read before the record is handed over: reading it in the same call would copy it.
            let cursor = record.journalCursor
            place(consume record, cursorAfter: cursor, into: &chunk, window: &window, now: now, holding: holding,
                admit: admit, taken: &taken)
        }
        window.append(chunk)
        // In the window now: the position goes onto its last record from here on.
        chunk = IngestWindow.Chunk()
        if let through { pass(through, chunk: &chunk, window: &window, taken: &taken) }
        if window.isEmpty { placeDrops(into: &window, now: now, holding: holding, admit: admit, taken: &taken) }
        return taken
    }

    /// Places the record of the drops gathered, if any, at the window's end: at a batch's
    /// boundary, or once a batch left the window empty, so that it never waits for the unit's
    /// next line.
    mutating func placeDrops(
        into window: inout IngestWindow, now: LiveNow, holding: Bool, admit: (LogRecord) -> SamplingMark?
    ) -> Taken {
        var taken = Taken()
        placeDrops(into: &window, now: now, holding: holding, admit: admit, taken: &taken)
        return taken
    }

    /// Forgets the drops gathered: what they stand for was skipped with the queue (consent
    /// withdrawn, the kill switch).
    mutating func forgetDrops() {
        _ = limiter?.takeDrops()
    }

    private mutating func placeDrops(
        into window: inout IngestWindow, now: LiveNow, holding: Bool, admit: (LogRecord) -> SamplingMark?,
        taken: inout Taken
    ) {
        guard let drops = limiter?.takeDrops() else { return }
        var chunk = IngestWindow.Chunk(reservingCapacity: 1)
        place(drops, into: &chunk, window: &window, now: now, holding: holding, admit: admit, taken: &taken)
        window.append(chunk)
    }

    private mutating func place(
        _ drops: RateLimitDrops, into chunk: inout IngestWindow.Chunk, window: inout IngestWindow, now: LiveNow,
        holding: Bool, admit: (LogRecord) -> SamplingMark?, taken: inout Taken
    ) {
        guard let limit = limiter?.limit else { return }
        place(drops.record(unit: unit, limit: limit), cursorAfter: drops.cursorAfter, into: &chunk, window: &window,
            now: now, holding: holding, admit: admit, taken: &taken)
    }

    /// One record into the chunk, or, kept out by the policy, its position onto what is before it.
    private mutating func place(
        _ record: consuming LogRecord, cursorAfter: String?, into chunk: inout IngestWindow.Chunk,
        window: inout IngestWindow, now: LiveNow, holding: Bool, admit: (LogRecord) -> SamplingMark?,
        taken: inout Taken
    ) {
        var mark: SamplingMark?
        if !holding {
            mark = admit(record)
            guard mark != nil else {
                taken.filtered += 1
                if let cursorAfter { pass(cursorAfter, chunk: &chunk, window: &window, taken: &taken) }
                return
            }
        }
        // While drops gather, a kept record's position is the drop record's to carry.
        var cursorAfter = cursorAfter
        if let cursor = cursorAfter, limiter?.holds == true {
            limiter?.hold(cursor)
            cursorAfter = nil
        }
        let entry = IngestWindow.Entry(
            held: mark == nil, bytes: IngestWindow.estimatedBytes(record, memo: &attributeBytes),
            cursorAfter: cursorAfter, queuedAt: now.mono, prompt: JournalDropRecord.isDropRecord(record))
        // A held record's mark is a stand-in until the first policy decides (`admitHeld`).
        chunk.append(IngestRecord(record, mark: mark ?? .unsampled, observedTimeUnixNano: UInt64(max(now.wallUnixMs, 0)) * 1_000_000), entry)
    }

    /// A position past entries that were not delivered: held while drops gather, else onto the
    /// last record before it, else to be saved.
    private mutating func pass(
        _ cursor: String, chunk: inout IngestWindow.Chunk, window: inout IngestWindow, taken: inout Taken
    ) {
        if limiter?.holds == true {
            limiter?.hold(cursor)
        } else if !chunk.extendLast(to: cursor), !window.extendLast(to: cursor) {
            taken.passed = cursor
        }
    }
}
