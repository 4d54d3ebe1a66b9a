/// An app's saved journal position, `apps/NAME/cursor`: the cursor of the last entry the backend
/// accepted (or `CursorStore.fromHead`), and the unit among whose entries it was read.
///
/// A journal cursor means something only among the entries it was read from: ingest resumes
/// after it with the unit's matches, and another unit's entry is not among them, so sd-journal
/// cannot find it and it looks vacuumed. The unit goes with the cursor so that an app file whose
/// `Unit=` changed is known to have no position for its new unit yet (docs/configuration.md).
package struct SavedCursor: Sendable, Equatable {
    package var cursor: String
    /// The app file's `Unit=` when the cursor was saved; nil in a file an earlier apsiod wrote,
    /// which kept the cursor alone.
    package var unit: String?
    /// What follows the cursor in the journal was written while nothing of the app could leave
    /// (consent not granted, the kill switch on): it is skipped, never sent, whatever consent says
    /// when it is next read. Saved at once when ingest is withheld, and cleared, in the same write
    /// as the position after the skip, when it is released; so a crash meanwhile, and consent
    /// granted while apsiod was stopped, send nothing written while it was withheld.
    package var withheld: Bool

    package init(_ cursor: String, unit: String?, withheld: Bool = false) {
        self.cursor = cursor
        self.unit = unit
        self.withheld = withheld
    }
}
