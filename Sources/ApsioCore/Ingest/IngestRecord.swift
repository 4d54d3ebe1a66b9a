/// A log record on its way through ingest, with why it goes (its sampling mark).
package struct IngestRecord: Sendable, Equatable {
    package var record: LogRecord
    package var mark: SamplingMark
    /// When `apsiod` read or made the record (`observedTimeUnixNano`); nil means the record's own
    /// time, which for a journal entry is already when journald received it.
    package var observedTimeUnixNano: UInt64?
}

/// Delegates to the memberwise initializer, for the reason `LogRecord`'s do: one per record.
extension IngestRecord {
    package init(_ record: LogRecord, mark: SamplingMark, observedTimeUnixNano: UInt64? = nil) {
        self.init(record: record, mark: mark, observedTimeUnixNano: observedTimeUnixNano)
    }
}
