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
    /// off the record queue's bounds or damaged there, or a journal gap (counted once a gap: how many
    /// entries a vacuumed stretch held cannot be known).
    package var droppedRecords = 0
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

    package init() {}
}
