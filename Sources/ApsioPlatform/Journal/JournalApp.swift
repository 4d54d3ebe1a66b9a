package import ApsioCore

/// One configured app as the journal follower sees it: whose entries, from where, and how low.
package struct JournalApp: Sendable, Equatable {
    /// The app's name; records and cursors come back under it.
    package var id: String
    /// The systemd unit whose entries (`_SYSTEMD_UNIT=`) and crashes (`COREDUMP_UNIT=`) are the app's.
    package var unit: String
    /// The app file's `MinPriority=` as a journald priority 0–7: entries with a larger number (less
    /// severe) are not delivered, though the app's cursor still moves past them. Coredumps are
    /// always delivered.
    package var minPriority: Int
    /// The app file's `Match=` and `Exclude=`: which of the unit's lines are delivered. Like
    /// `minPriority`, it never holds back coredumps or journald's notes of dropped lines, and the
    /// cursor moves past what it leaves out.
    package var selection: JournalEntrySelection
    /// Where the app's records start.
    package var start: JournalStart

    package init(
        id: String, unit: String, minPriority: Int = 7, selection: JournalEntrySelection = .everything, start: JournalStart
    ) {
        self.id = id
        self.unit = unit
        self.minPriority = minPriority
        self.selection = selection
        self.start = start
    }
}

/// Where an app's records start when the follower opens.
package enum JournalStart: Sendable, Equatable {
    /// Every entry of the unit still in the journal.
    case oldest
    /// Only entries written after the follower opened.
    case now
    /// The entries of the boot `bootID` names (32 lowercase hex, `/proc/sys/kernel/random/boot_id`
    /// without its dashes), and everything after; with none of that boot yet, as `.now`.
    case boot(bootID: String)
    /// The entries after the one this saved cursor names. When that entry is gone (vacuumed), the
    /// app resumes at the first entry after where it was, which is the oldest still there, and the
    /// follower reports a `JournalGap`.
    case after(cursor: String)
}

/// Where an app's reading starts, once the follower has opened: what to save for an app served for
/// the first time, so that a crash before its first batch is accepted resumes there and not at
/// the journal's end again.
package enum JournalStartPoint: Sendable, Equatable {
    /// From the oldest entry there is: the app wanted everything, or the journal held none of the
    /// entries it wanted when it opened.
    case head
    /// After the entry this cursor names.
    case after(cursor: String)
}
