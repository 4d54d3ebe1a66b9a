package import ApsioPlatform
package import ApsioState

/// Where an app's ingest starts: after the position its cursor file holds, or afresh where the
/// app file's `StartAt=` says. The decision alone; the journal is asked only about a position an
/// earlier apsiod saved without its unit, through `owner`.
///
/// A position is a place among the entries of the unit it was read for. For another unit it
/// means nothing: resumed with the new unit's matches, the old unit's entry is not found, looks
/// vacuumed, and every entry of the new unit before it would be skipped and one counted lost. So
/// an app file whose `Unit=` changed starts the new unit as a newly served app would, as the same
/// install (its id, queue and settings stay).
package enum IngestStart: Sendable, Equatable {
    /// After the saved cursor, or from the oldest entry for a saved `head`.
    case resume(JournalStart)
    /// At the app file's `StartAt=`, for `reason`.
    case afresh(Reason)

    package enum Reason: Sendable, Equatable {
        /// No position yet: the app is served for the first time (or its cursor file was damaged).
        case firstServed
        /// The position was saved while the app file said `Unit=` this.
        case unitChanged(from: String)
        /// A position saved without its unit names an entry of another unit than the app's.
        case entryOfAnotherUnit
    }

    package static func decide(
        saved: SavedCursor?, unit: String, owner: (_ cursor: String) -> JournalCursorOwner
    ) -> IngestStart {
        guard let saved else { return .afresh(.firstServed) }
        if let savedUnit = saved.unit, savedUnit != unit { return .afresh(.unitChanged(from: savedUnit)) }
        if saved.cursor == CursorStore.fromHead {
            // Saved without its unit, `head` cannot tell whose it was; reading from the oldest entry
            // sends more than `StartAt=` might have, never less.
            return .resume(.oldest)
        }
        if saved.unit == nil, owner(saved.cursor) == .anotherUnit { return .afresh(.entryOfAnotherUnit) }
        // The unit's own entry; or, saved without its unit, one no longer there, which was most
        // likely this unit's: its reader resumes at the oldest entry still there and reports the gap.
        return .resume(.after(cursor: saved.cursor))
    }
}
