/// The app file's `StartAt=`: where an app served for the first time starts reading its journal,
/// as the journald shippers offer it (Fluent Bit's `Read_From_Tail`, the OpenTelemetry
/// collector's `start_at`, Vector's `since_now`). It applies only while the app has no saved
/// position; from then on ingest resumes after the last entry the backend accepted.
package enum StartAt: String, Sendable, Equatable, CaseIterable {
    /// Entries written from now on: the default, so adding an app to a busy box does not send its
    /// whole history at once, and what the team sees starts when they asked.
    case now
    /// The unit's entries since the current boot.
    case boot
    /// Everything of the unit still in the journal.
    case head
}
