import ApsioCore
import ApsioRedaction

/// How one app's journal entries enter its window: each redacted (on the box, before anything else
/// sees it), then through the policy's gate, with the size it will cost a batch.
struct IngestIntake {
    private var redaction: RedactionStream
    private var attributeBytes = AttributeMemo<Int>()

    init(redactor: Redactor, limits: Limits) {
        redaction = RedactionStream(redactor: redactor, limits: limits)
    }

    /// Takes the app's part of a batch the reader read, ending at journal cursor `through`.
    /// `holding` before the first policy: every record is then held in the window until it comes
    /// (15.3), and `admit` is not asked. Returns how many records the policy kept out, and the cursor to save when
    /// nothing waits before it any more: records kept out move the cursor of the record before
    /// them, or, with nothing before them in the window, the saved one.
    mutating func take(
        _ part: consuming [LogRecord], through: String?, into window: inout IngestWindow, now: LiveNow,
        holding: Bool, admit: (LogRecord) -> SamplingMark?
    ) -> (filtered: Int, passed: String?) {
        var filtered = 0
        var passed: String?
        let observed = UInt64(max(now.wallUnixMs, 0)) * 1_000_000
        // Popped from the end of the reversed part: each record is moved out, not copied, when (as
        // from the catch-up reader) nobody else holds the part. Reversed through its buffer, whose
        // swaps move memory: `Array.reverse()` copies both records of each swap, a retain and a
        // release for each of their strings.
        var part = part
        part.withUnsafeMutableBufferPointer { $0.reverse() }
        var chunk = IngestWindow.Chunk(reservingCapacity: part.count)
        while var record = part.popLast() {
            redaction.redact(&record)
            var mark: SamplingMark?
            if !holding {
                mark = admit(record)
                guard mark != nil else {
                    filtered += 1
                    if let cursor = record.journalCursor, !chunk.extendLast(to: cursor), !window.extendLast(to: cursor) {
                        passed = cursor
                    }
                    continue
                }
            }
            let entry = IngestWindow.Entry(
                held: mark == nil, bytes: IngestWindow.estimatedBytes(record, memo: &attributeBytes),
                cursorAfter: record.journalCursor, queuedAt: now.mono)
            // A held record's mark is a stand-in until the first policy decides (`admitHeld`).
            chunk.append(IngestRecord(consume record, mark: mark ?? .unsampled, observedTimeUnixNano: observed), entry)
        }
        window.append(chunk)
        if let through, !window.extendLast(to: through) { passed = through }
        return (filtered, passed)
    }
}
