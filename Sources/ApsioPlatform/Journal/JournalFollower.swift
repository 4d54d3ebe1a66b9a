package import ApsioCore
import ApsioPOSIX
#if canImport(Glibc)
internal import Glibc
#endif

/// Follows one journal for every configured app: reads what is there in batches, then waits on
/// the journal's inotify descriptor inside the async runtime (never on a timer) for more.
///
/// Each app resumes at its own cursor (see `JournalReader`). Rotation, vacuuming and new files
/// (`SD_JOURNAL_INVALIDATE`) are met by seeking back to the last entry read and stepping past it,
/// so nothing is read twice and nothing after it is skipped.
///
/// Every `JournalReadLimits.entriesPerOpening` entries, at the next entry an app wants, the journal
/// is opened afresh and the reading put back right after that entry: sd-journal lets go of a
/// window it mapped only when it closes the file, so this is what keeps a reader's memory from
/// growing with what it has read.
///
/// One task reads: a second `next()` while one waits is refused. Cancelling the reading task ends
/// a wait at once; the follower can be read again afterwards. The journal is closed when the
/// follower goes away.
package actor JournalFollower {
    /// The apps whose saved cursor named an entry no longer there, found when the follower opened.
    package nonisolated let gaps: [JournalGap]
    /// Where each app's reading starts, by app id: what an app served for the first time saves.
    package nonisolated let startPoints: [String: JournalStartPoint]

    private let source: JournalSource
    private let limits: JournalReadLimits
    private var reader: JournalReader
    /// The open journal's inotify descriptor, which libsystemd owns: a new opening has its own.
    private var descriptor: Int32
    /// The open journal's `entriesRead` at which it is opened afresh.
    private var renewalAt: Int
    /// How many times the journal was opened, the first included.
    package private(set) var openings = 1
    private let log: Logger
    private var needsResync = false
    private var reading = false
    private var fileCheck: JournalFileCheck?
    private let unreadableFile: (@Sendable (UnreadableJournalFile) -> Void)?

    /// `unreadableFile`: told of each journal file libsystemd cannot read, once a file, when the
    /// follower opens and whenever files come and go. One follower of the daemon's asks for it, so
    /// that a broken file is reported once, not once for every app.
    package init(
        source: JournalSource, apps: [JournalApp], limits: JournalReadLimits = .standard,
        log: Logger = .discarding(.journal), unreadableFile: (@Sendable (UnreadableJournalFile) -> Void)? = nil
    ) throws(JournalError) {
        try Self.check(apps)
        self.source = source
        self.limits = limits
        self.log = log
        renewalAt = limits.entriesPerOpening
        let (journal, descriptor) = try Self.open(source)
        self.descriptor = descriptor
        reader = try JournalReader(journal: journal, apps: apps, limits: limits)
        gaps = reader.gaps
        startPoints = reader.startPoints
        self.unreadableFile = unreadableFile
        if let unreadableFile {
            var check = JournalFileCheck(source: source)
            for file in check.newlyUnreadable() { unreadableFile(file) }
            fileCheck = check
        }
    }

    /// Reads for `apps` from now on, each from its own start, on the same journal: its open files,
    /// mappings and inotify watch are kept, which opening another reader would make again; only
    /// the matches and the place change. A journal that has read `entriesPerOpening` entries is
    /// opened afresh here instead. Returns the apps whose saved cursor named an entry no longer
    /// there. After a failure the follower reads for no app: it is to be dropped.
    package func retarget(to apps: [JournalApp]) throws(JournalError) -> [JournalGap] {
        guard !reading else { throw JournalError.concurrentRead }
        try Self.check(apps)
        let read = reader.journal.entriesRead
        let fresh = read >= renewalAt ? try Self.open(source) : nil
        reader = try JournalReader(
            journal: fresh?.journal ?? reader.journal, apps: apps, limits: limits, sessions: reader.sessions)
        if let fresh { renewed(fresh.descriptor, afterReading: read) }
        needsResync = false
        return reader.gaps
    }

    /// A journal whose inotify descriptor is asked for before its first read, so that what is
    /// written during that read wakes the first wait.
    private static func open(_ source: JournalSource) throws(JournalError) -> (journal: Journal, descriptor: Int32) {
        let journal = try Journal(source)
        return (journal, try journal.fileDescriptor())
    }

    /// The reader reads from a new opening now; the old one closes as the reader lets it go.
    private func renewed(_ newDescriptor: Int32, afterReading entries: Int) {
        descriptor = newDescriptor
        openings += 1
        renewalAt = limits.entriesPerOpening
        log.debug("the journal was opened afresh after \(entries) entries, letting go of the files' pages it had mapped")
    }

    /// Opens the journal afresh once this opening has read its share and the reading stands on an
    /// entry an app wanted, and goes on right after that entry. When it cannot be opened, this
    /// opening reads on and it is tried again after as many entries more.
    private func renewIfDue() {
        let read = reader.journal.entriesRead
        guard read >= renewalAt, reader.standsOnLastEntry else { return }
        do {
            let fresh = try Self.open(source)
            try reader.move(to: fresh.journal)
            renewed(fresh.descriptor, afterReading: read)
            needsResync = false
        } catch {
            renewalAt = read + limits.entriesPerOpening
            log.warning("the journal could not be opened afresh after \(read) entries: \(error); it reads on as it was")
        }
    }

    private static func check(_ apps: [JournalApp]) throws(JournalError) {
        guard !apps.isEmpty else {
            throw JournalError("JournalFollower", errno: 0, detail: "no app to follow: there would be nothing to match")
        }
        var seen = Set<String>()
        for app in apps where !seen.insert(app.id).inserted {
            throw JournalError("JournalFollower", errno: 0, detail: "app \(app.id) is configured twice")
        }
    }

    /// The next records, waiting for the journal to grow when everything has been read. Never
    /// returns an empty batch; a batch may hold only cursors (entries below the apps' floors).
    package func next() async throws -> JournalBatch {
        guard !reading else { throw JournalError.concurrentRead }
        reading = true
        defer { reading = false }
        while true {
            let (batch, atEnd) = try read()
            if !batch.isEmpty { return batch }
            if atEnd {
                try await waitForChanges()
            } else {
                // A long run of entries no app wants yet: let other tasks run meanwhile.
                try Task.checkCancellation()
                await Task.yield()
            }
        }
    }

    /// The next records already in the journal, or nil when everything has been read; never waits.
    package func nextAvailable() throws(JournalError) -> JournalBatch? {
        guard !reading else { throw JournalError.concurrentRead }
        reading = true
        defer { reading = false }
        var lookedForChanges = false
        while true {
            let (batch, atEnd) = try read()
            if !batch.isEmpty { return batch }
            guard atEnd else { continue }
            // Pick up what inotify saw since the last look (new entries, new files), once.
            if lookedForChanges { return nil }
            lookedForChanges = true
            changed(try reader.journal.process())
        }
    }

    private func read() throws(JournalError) -> (batch: JournalBatch, atEnd: Bool) {
        renewIfDue()
        if needsResync {
            try reader.resync()
            needsResync = false
        }
        return try reader.read()
    }

    private func waitForChanges() async throws {
        var timeout: Duration?
        if let deadline = try reader.journal.processDeadline() {
            let now = Self.monotonicMicroseconds()
            timeout = .microseconds(deadline > now ? Int64(clamping: deadline - now) : 0)
        }
        _ = try await Readiness.wait(descriptor, for: .readable, timeout: timeout)
        changed(try reader.journal.process())
    }

    /// Files came, went or were renamed: the reading's place must be found again, and a new file
    /// may be one libsystemd cannot read. Any other change looks again at a file that was being
    /// created at the last look (`JournalFileCheck`), and only then.
    private func changed(_ change: Journal.Change) {
        if change == .invalidated {
            needsResync = true
        } else if fileCheck?.hasUnsettled != true {
            return
        }
        guard let unreadableFile, var check = fileCheck else { return }
        for file in check.newlyUnreadable() { unreadableFile(file) }
        fileCheck = check
    }

    private static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
    }
}
