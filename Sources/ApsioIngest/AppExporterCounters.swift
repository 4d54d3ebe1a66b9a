package import ApsioCore

/// What an app's ingest has done since `apsiod` started, for `apsioctl status`.
package struct AppExporterCounters: Sendable, Equatable {
    /// Read or made and not yet accepted (`apsio.queue.records`, `apsio.queue.bytes`): the journal
    /// window and the record queue, the batch in flight and records held before the first policy
    /// included.
    package var queuedRecords = 0
    package var queuedBytes = 0
    /// Accepted by the backend.
    package var sentRecords = 0
    package var sentBatches = 0
    /// Lost (`apsio.queue.dropped`): refused by the backend (400, or 413 for a single record), fallen
    /// off the record queue's bounds or damaged there. Records counted one by one; a journal gap is
    /// not among them.
    package var droppedRecords = 0
    /// Stretches of the app's entries lost to the journal: the entry after which reading stood was
    /// vacuumed before what followed it was sent. How many entries each held cannot be known (the
    /// journal's sequence numbers count every unit's), so they are counted apart from
    /// `droppedRecords`, whose figure would be wrong by all but one of them.
    package var journalGaps = 0
    /// journald's notes that its rate limit dropped lines of the app's unit, each sent as a record
    /// (`JournalDropRecord`), and the lines they count: those never reached the journal, so they
    /// are apart from `droppedRecords` too.
    package var journaldDropNotes = 0
    package var journaldDroppedLines = 0
    /// The unit's entries the app's `RateLimit=` dropped (each run of them sent as one record,
    /// `RateLimitDrops`): a decision the app file made, apart from `droppedRecords` too.
    package var rateLimitedRecords = 0
    /// Records the backend accepted in a batch and then said it did not keep (OTLP's
    /// `partial_success.rejected_log_records`): not sent again, and counted apart from
    /// `droppedRecords`, which counts what apsiod itself let go.
    package var rejectedRecords = 0
    /// Batches the backend refused with 400.
    package var rejectedBatches = 0
    /// Records the policy kept out: a family that is off, below `logs_min_severity`, a session
    /// sampling dropped. A decision, not a loss.
    package var filteredRecords = 0
    /// Records dropped unsent because consent was withdrawn or the kill switch came. Also a decision.
    package var discardedRecords = 0
    /// Set once the backend answered 401: nothing is sent for the app until `apsiod` restarts.
    package var stopped: IngestDeliveryAction.StopReason?
    /// The last failure, in words an operator can act on; nil once a batch is accepted again.
    package var lastFailure: String?
    /// How batches go now, and what the backend refused of the app file's choice: "protobuf,
    /// zstd", or "json (the backend refused protobuf), gzip (the backend refused zstd)" after its
    /// answers switched them until apsiod restarts.
    package var sentAs: String?

    package init() {}
}
