import ApsioJSON
/// What an app's ingest has done since `apsiod` started, as `apsioctl status` shows it: what waits,
/// what went, what was lost (`apsio.queue.dropped`) and why the last batch did not go.
package struct ControlIngestStatus: Sendable, Equatable {
    /// Read or made and not yet accepted (`apsio.queue.records`, `apsio.queue.bytes`).
    package var queuedRecords: Int
    package var queuedBytes: Int
    /// Accepted by the backend.
    package var sentRecords: Int
    /// Lost, counted record by record: refused by the backend, fallen off the queue's bounds or
    /// damaged.
    package var droppedRecords: Int
    /// Stretches of entries lost to the journal (vacuumed before they were sent): how many entries
    /// each held cannot be known, so they are not in `droppedRecords`.
    package var journalGaps: Int
    /// journald's notes that its rate limit dropped lines of the app's unit, and the lines they
    /// count: never in the journal, so not in `droppedRecords`.
    package var journaldDropNotes: Int
    package var journaldDroppedLines: Int
    /// The unit's entries the app file's `RateLimit=` dropped, each run of them sent as one
    /// record: a decision, not a loss, so not in `droppedRecords`.
    package var rateLimitedRecords: Int
    /// Accepted in a batch and then not kept by the backend (OTLP's partial success).
    package var rejectedRecords: Int
    /// Kept out by the policy or the app file (a family that is off, the severity floor, sampling).
    package var filteredRecords: Int
    /// The last failure, in words an operator can act on; nil once a batch is accepted again.
    package var lastFailure: String?
    /// The encoding and compression batches go in now (`Encoding=`, `Compression=`), and which of
    /// them the backend refused: "protobuf, gzip", "json (the backend refused protobuf), gzip".
    package var sentAs: String?

    package init(
        queuedRecords: Int = 0, queuedBytes: Int = 0, sentRecords: Int = 0, droppedRecords: Int = 0,
        journalGaps: Int = 0, journaldDropNotes: Int = 0, journaldDroppedLines: Int = 0, rateLimitedRecords: Int = 0,
        rejectedRecords: Int = 0,
        filteredRecords: Int = 0, lastFailure: String? = nil, sentAs: String? = nil
    ) {
        self.queuedRecords = queuedRecords
        self.queuedBytes = queuedBytes
        self.sentRecords = sentRecords
        self.droppedRecords = droppedRecords
        self.journalGaps = journalGaps
        self.journaldDropNotes = journaldDropNotes
        self.journaldDroppedLines = journaldDroppedLines
        self.rateLimitedRecords = rateLimitedRecords
        self.rejectedRecords = rejectedRecords
        self.filteredRecords = filteredRecords
        self.lastFailure = lastFailure
        self.sentAs = sentAs
    }

    var json: JSONValue {
        var members: [String: JSONValue] = [
            "queued_records": .number(Double(queuedRecords)), "queued_bytes": .number(Double(queuedBytes)),
            "sent_records": .number(Double(sentRecords)), "dropped_records": .number(Double(droppedRecords)),
            "journal_gaps": .number(Double(journalGaps)), "journald_drop_notes": .number(Double(journaldDropNotes)),
            "journald_dropped_lines": .number(Double(journaldDroppedLines)),
            "rate_limited_records": .number(Double(rateLimitedRecords)),
            "rejected_records": .number(Double(rejectedRecords)),
            "filtered_records": .number(Double(filteredRecords)),
            "last_failure": lastFailure.map(JSONValue.string) ?? .null,
        ]
        if let sentAs { members["sent_as"] = .string(sentAs) }
        return .object(members)
    }

    init(json value: JSONValue) throws(ControlError) {
        let reader = try ControlFieldReader(value, what: "an app's ingest")
        queuedRecords = try reader.int("queued_records")
        queuedBytes = try reader.int("queued_bytes")
        sentRecords = try reader.int("sent_records")
        droppedRecords = try reader.int("dropped_records")
        // Absent from an earlier apsiod's answer, which counted each gap as one dropped record.
        journalGaps = try reader.optionalInt("journal_gaps") ?? 0
        // Absent from an earlier apsiod's answer, which did not read journald's notes.
        journaldDropNotes = try reader.optionalInt("journald_drop_notes") ?? 0
        journaldDroppedLines = try reader.optionalInt("journald_dropped_lines") ?? 0
        // Absent from an earlier apsiod's answer, which had no RateLimit=.
        rateLimitedRecords = try reader.optionalInt("rate_limited_records") ?? 0
        // Absent from an earlier apsiod's answer, which did not read partial successes.
        rejectedRecords = try reader.optionalInt("rejected_records") ?? 0
        filteredRecords = try reader.int("filtered_records")
        lastFailure = try reader.optionalString("last_failure")
        // Absent from an earlier apsiod's answer.
        sentAs = try reader.optionalString("sent_as")
    }
}
