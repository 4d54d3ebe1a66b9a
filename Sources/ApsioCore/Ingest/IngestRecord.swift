/// A log record on its way through ingest, with why it goes (its sampling mark).
package struct IngestRecord: Sendable, Equatable {
    package var record: LogRecord
    package var mark: SamplingMark
    /// When `apsiod` read or made the record (`observedTimeUnixNano`); nil means the record's own
    /// time, which for a journal entry is already when journald received it.
    package var observedTimeUnixNano: UInt64?

    package init(_ record: LogRecord, mark: SamplingMark, observedTimeUnixNano: UInt64? = nil) {
        self.record = record
        self.mark = mark
        self.observedTimeUnixNano = observedTimeUnixNano
    }
}
