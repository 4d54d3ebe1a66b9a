package import ApsioCore

/// What one read of the journal gave: each app's records, and how far each app's cursor may move
/// once those records are accepted.
package struct JournalBatch: Sendable, Equatable {
    /// Each app's records in journal order, by app id. Kept apart as the reader makes them, so that
    /// each app's ingest takes its own part whole, without looking at the others' or copying them.
    package var records: [String: [LogRecord]]
    /// For each app with entries in this batch, the cursor of its last one, whether delivered or
    /// below its `minPriority`. Once the backend accepted every record of that app up to here, this
    /// is the app's cursor to save: a follower opened with `.after(cursor:)` on it repeats nothing.
    package var cursors: [String: String]

    package init(records: [String: [LogRecord]] = [:], cursors: [String: String] = [:]) {
        self.records = records
        self.cursors = cursors
    }

    package var isEmpty: Bool { records.isEmpty && cursors.isEmpty }

    /// One app's part of the batch, moved out of it: the records and the cursor, or an empty batch.
    package mutating func takePart(of appID: String) -> JournalBatch {
        var part = JournalBatch()
        if let records = records.removeValue(forKey: appID) { part.records[appID] = records }
        if let cursor = cursors.removeValue(forKey: appID) { part.cursors[appID] = cursor }
        return part
    }
}

/// An app's saved cursor named an entry that is no longer in the journal: what came between it and
/// the oldest entry still there is lost, and the caller counts it as a gap (how many entries it held
/// cannot be known).
package struct JournalGap: Sendable, Equatable {
    package enum Reason: Sendable, Equatable {
        /// The entry was removed (vacuumed, or its file deleted).
        case entryGone
        /// The cursor could not be read: the app starts at the oldest entry.
        case unreadableCursor
    }

    package var appID: String
    package var cursor: String
    package var reason: Reason

    package init(appID: String, cursor: String, reason: Reason) {
        self.appID = appID
        self.cursor = cursor
        self.reason = reason
    }
}

/// The follower's bounds: on what it reads from a file anyone on the machine could have filled,
/// and on how much one batch holds.
package struct JournalReadLimits: Sendable, Equatable {
    /// A field longer than this is read only this far (`sd_journal_set_data_threshold`): a 100 KiB
    /// message is read whole, a core stored in the journal is not.
    package var maxFieldBytes = 1 << 20
    /// The app's own fields forwarded from one entry; the rest are left out.
    package var maxUserFields = 64
    /// Records in one batch.
    package var maxRecordsPerBatch = 256
    /// Entries looked at in one batch, delivered or not, so a long run of entries no app wants
    /// still returns now and then with the cursors it moved.
    package var maxEntriesPerBatch = 4096
    /// Entries one opening of the journal reads before the reader opens it afresh at the same
    /// place. sd-journal keeps each 8 MiB window of a file it mapped (up to 64 a reader) and every
    /// page read through one stays in the process's memory until the window goes, so without this
    /// a reader through a long backlog, or one following a busy journal for days, would hold as
    /// much of the files as it had read. An opening costs about half a millisecond; at a few
    /// hundred bytes an entry, this many keep a reader's mapped pages in the tens of MiB
    /// (docs/ingest.md, "One reader").
    package var entriesPerOpening = 16_384
    /// Body and attribute cuts.
    package var record: Limits = .spec

    package init() {}

    package static let standard = JournalReadLimits()
}
