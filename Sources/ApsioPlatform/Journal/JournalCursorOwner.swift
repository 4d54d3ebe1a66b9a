#if canImport(Glibc)
internal import Glibc
#endif

/// Whether the entry a saved cursor names is one of a unit's, for a position saved before apsiod
/// kept the unit with it (`SavedCursor`): a reader of the unit cannot tell another unit's entry
/// from a vacuumed one, since its matches hide both, and taking the one for the other would skip
/// every entry of the unit up to there as lost.
package enum JournalCursorOwner: Sendable, Equatable {
    /// Among the unit's entries, as its reader's matches see them: resuming after it reads on.
    case unit
    /// In the journal, but not among the unit's entries: a position in another unit's.
    case anotherUnit
    /// Not in the journal (vacuumed), or not a cursor sd-journal reads: whose it was is not known.
    case unknown

    /// Looks on a journal opened for this alone, first with the unit's matches, then without any.
    package static func of(_ cursor: String, unit: String, in source: JournalSource) throws(JournalError) -> Self {
        guard JournalPosition(cursor: cursor) != nil else { return .unknown }
        let journal = try Journal(source)
        defer { journal.close() }
        try JournalReader.prepare(journal, for: JournalRouter(units: [unit]), limits: .standard)
        if try isThere(cursor, in: journal) { return .unit }
        try journal.flushMatches()
        return try isThere(cursor, in: journal) ? .anotherUnit : .unknown
    }

    /// Seeking to a cursor and stepping once lands on its entry when the matches let it through.
    private static func isThere(_ cursor: String, in journal: Journal) throws(JournalError) -> Bool {
        do {
            try journal.seekCursor(cursor)
        } catch where error.errno == EINVAL {
            return false
        }
        guard try journal.next() else { return false }
        return try journal.isAt(cursor)
    }
}
