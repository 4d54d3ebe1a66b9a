import ApsioCore
import ApsioPlatform
import ApsioState

/// Where an app's reading begins when its exporter starts: `IngestStart`'s decision carried out on
/// the journal, and saved before anything is read.
///
/// An app with no saved position, or one saved for another unit (its `Unit=` changed), starts at
/// the app file's `StartAt=`, and that start is saved with the unit and synced at once: from the
/// moment an app is first served, every entry read reaches the backend at least once, whatever
/// moment the daemon is killed at. Without it, a crash before the first accepted batch would start
/// at the journal's end again, past every entry read so far.
struct IngestResumption {
    /// Where reading starts: what the app has taken from the journal.
    var point: JournalStartPoint
    /// The saved position, found gone (vacuumed): what was between it and the oldest entry is lost.
    var gaps: [JournalGap]
    /// The run before left the position withheld (`IngestReadingEvent.started`).
    var withheldWhenLastRun: Bool

    /// `app`'s `start` is not looked at: it is what this decides. `withheld`: whether the app is
    /// withheld now, kept with what is saved.
    static func resolve(
        _ app: JournalApp, firstStart: JournalStart, cursor: AppCursor, journal: JournalHub, withheld: Bool,
        now: MonotonicInstant, log: Logger
    ) throws(JournalError) -> IngestResumption {
        let saved: SavedCursor?
        do {
            saved = try cursor.saved()
        } catch {
            // A damaged cursor file is reported, and the app starts where a new one would.
            log.warning("\(error); starting as a newly served app")
            saved = nil
        }
        let decision = IngestStart.decide(saved: saved, unit: app.unit) { saved in
            // Asked only of a position an earlier apsiod saved; a journal that cannot be opened
            // leaves it this unit's, as that apsiod took it.
            (try? journal.owner(of: saved, unit: app.unit)) ?? .unknown
        }
        var app = app
        switch decision {
        case .resume(let start):
            app.start = start
        case .afresh(let reason):
            app.start = firstStart
            logStartingAfresh(reason, unit: app.unit, log: log)
        }
        let found = try journal.startPoint(of: app)
        if case .afresh = decision {
            cursor.save(found.point, withheld: withheld)
            cursor.write(force: true, now: now)
        } else if let saved, saved.unit == nil {
            // Kept with its unit from now on: the next start needs no look at the journal.
            cursor.save(saved.cursor, withheld: withheld)
            cursor.write(force: true, now: now)
        }
        return IngestResumption(point: found.point, gaps: found.gaps, withheldWhenLastRun: saved?.withheld == true)
    }

    /// Once, at the start that finds the saved position belongs to another unit: an operator who
    /// sees the unit's history sent (or not, with `StartAt=now`) learns why.
    private static func logStartingAfresh(_ reason: IngestStart.Reason, unit: String, log: Logger) {
        switch reason {
        case .firstServed:
            break
        case .unitChanged(let old):
            log.notice("Unit= is now \(unit), no longer \(old): the position saved among \(old)'s entries means nothing for it, so reading starts where StartAt= says, as for a newly served app (the installation id and queue stay)")
        case .entryOfAnotherUnit:
            log.notice("the saved position is an entry of another unit than \(unit) (Unit= changed): reading starts where StartAt= says, as for a newly served app (the installation id and queue stay)")
        }
    }
}
