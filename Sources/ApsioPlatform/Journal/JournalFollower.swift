import ApsioCore
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
/// One task reads: a second `next()` while one waits is refused. Cancelling the reading task ends
/// a wait at once; the follower can be read again afterwards. The journal is closed when the
/// follower goes away.
package actor JournalFollower {
    /// The apps whose saved cursor named an entry no longer there, found when the follower opened.
    package nonisolated let gaps: [JournalGap]
    /// Where each app's reading starts, by app id: what an app served for the first time saves.
    package nonisolated let startPoints: [String: JournalStartPoint]

    private var reader: JournalReader
    private let descriptor: Int32
    private var needsResync = false
    private var reading = false
    private var fileCheck: JournalFileCheck?
    private let unreadableFile: (@Sendable (UnreadableJournalFile) -> Void)?

    /// `unreadableFile`: told of each journal file libsystemd cannot read, once a file, when the
    /// follower opens and whenever files come and go. One follower of the daemon's asks for it, so
    /// that a broken file is reported once, not once for every app.
    package init(
        source: JournalSource, apps: [JournalApp], limits: JournalReadLimits = .standard,
        unreadableFile: (@Sendable (UnreadableJournalFile) -> Void)? = nil
    ) throws(JournalError) {
        try Self.check(apps)
        let journal = try Journal(source)
        // Before the first read, so that what is written during it wakes the first wait.
        descriptor = try journal.fileDescriptor()
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
    /// the matches and the place change. Returns the apps whose saved cursor named an entry no
    /// longer there. After a failure the follower reads for no app: it is to be dropped.
    package func retarget(to apps: [JournalApp], limits: JournalReadLimits = .standard) throws(JournalError) -> [JournalGap] {
        guard !reading else { throw JournalError.concurrentRead }
        try Self.check(apps)
        let journal = reader.journal
        reader = try JournalReader(journal: journal, apps: apps, limits: limits, sessions: reader.sessions)
        needsResync = false
        return reader.gaps
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
