import ApsioCore
import ApsioPOSIX
#if canImport(Glibc)
internal import Glibc
#endif

/// Follows one journal for every configured app: reads what is there in batches, then waits on
/// the journal's inotify descriptor inside the async runtime (never on a timer) for more.
///
/// Each app resumes at its own cursor although there is one reader: the follower starts at the
/// earliest of the apps' starting points and, until the reading passes an app's point, leaves that
/// app's entries out (`JournalPosition` says where an entry sits). Rotation, vacuuming and new files
/// (`SD_JOURNAL_INVALIDATE`) are met by seeking back to the last entry read and stepping past it,
/// so nothing is read twice and nothing after it is skipped.
///
/// One task reads: a second `next()` while one waits is refused. Cancelling the reading task ends
/// a wait at once; the follower can be read again afterwards. The journal is closed when the
/// follower goes away.
public actor JournalFollower {
    /// The apps whose saved cursor named an entry no longer there, found when the follower opened.
    public nonisolated let gaps: [JournalGap]

    private struct AppState {
        let id: String
        let minPriority: Int
        /// The app has had every entry up to here (its saved cursor, or the tail for `.now`).
        let threshold: JournalPosition?
        /// The reading has not passed `threshold` yet: the app's entries are left out.
        var pending: Bool
    }

    private enum Seek {
        case head
        case cursor(String)
    }

    private let journal: Journal
    private let descriptor: Int32
    private let router: JournalRouter
    private let mapper: JournalEntryMapper
    private let limits: JournalReadLimits
    private let appsByUnit: [[Int]]
    private let initialSeek: Seek
    private var apps: [AppState]
    private var pendingApps: Int
    private var fields: JournalEntryFields

    /// The cursor of the last entry the reading stood on, whether or not an app wanted it.
    private var lastCursor: String?
    /// After a re-seek, the reading already stands on an entry it has not taken.
    private var standingOnUnread = false
    private var needsResync = false
    private var reading = false

    public init(source: JournalSource, apps configured: [JournalApp], limits: JournalReadLimits = .standard)
        throws(JournalError)
    {
        guard !configured.isEmpty else {
            throw JournalError("JournalFollower", errno: 0, detail: "no app to follow: there would be nothing to match")
        }
        var seen = Set<String>()
        for app in configured where !seen.insert(app.id).inserted {
            throw JournalError("JournalFollower", errno: 0, detail: "app \(app.id) is configured twice")
        }

        let journal = try Journal(source)
        // Before the first read, so that what is written during it wakes the first wait.
        descriptor = try journal.fileDescriptor()
        try journal.setDataThreshold(limits.maxFieldBytes)
        let router = JournalRouter(units: configured.map(\.unit))
        for (index, group) in router.matchGroups.enumerated() {
            if index > 0 { try journal.addDisjunction() }
            for match in group { try journal.addMatch(match) }
        }

        let start = try Self.resolveStarts(configured, in: journal)
        try Self.seek(journal, to: start.seek)

        self.journal = journal
        self.router = router
        self.limits = limits
        mapper = JournalEntryMapper(limits: limits.record)
        fields = JournalEntryFields(limits: limits.record, maxUserFields: limits.maxUserFields)
        appsByUnit = router.units.map { unit in configured.indices.filter { configured[$0].unit == unit } }
        apps = start.apps
        pendingApps = start.apps.filter(\.pending).count
        initialSeek = start.seek
        gaps = start.gaps
    }

    // MARK: Reading

    /// The next records, waiting for the journal to grow when everything has been read. Never
    /// returns an empty batch; a batch may hold only cursors (entries below the apps' floors).
    public func next() async throws -> JournalBatch {
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
    public func nextAvailable() throws(JournalError) -> JournalBatch? {
        guard !reading else { throw JournalError.concurrentRead }
        reading = true
        defer { reading = false }
        var lookedForChanges = false
        while true {
            let (batch, atEnd) = try read()
            if !batch.isEmpty { return batch }
            guard atEnd else { continue }
            // Pick up what inotify saw since the last look (new entries, new files) once.
            if lookedForChanges { return nil }
            lookedForChanges = true
            if try journal.process() == .invalidated { needsResync = true }
        }
    }

    private func read() throws(JournalError) -> (batch: JournalBatch, atEnd: Bool) {
        if needsResync {
            try resync()
            needsResync = false
        }
        var batch = JournalBatch()
        var looked = 0
        while batch.records.count < limits.maxRecordsPerBatch, looked < limits.maxEntriesPerBatch {
            if standingOnUnread {
                standingOnUnread = false
            } else if try !journal.next() {
                return (batch, true)
            }
            looked += 1
            try take(into: &batch)
        }
        return (batch, false)
    }

    /// Routes the entry the reading stands on to its apps.
    private func take(into batch: inout JournalBatch) throws(JournalError) {
        let cursor = try journal.cursor()
        lastCursor = cursor
        if pendingApps > 0 { releaseApps(passedBy: cursor) }

        fields.reset()
        try journal.forEachField { fields.add($0) }
        guard let route = router.route(fields) else { return }
        let unitIndex: Int
        let isCoredump: Bool
        switch route {
        case .unit(let index): (unitIndex, isCoredump) = (index, false)
        case .coredump(let index): (unitIndex, isCoredump) = (index, true)
        }

        var record: LogRecord?
        let priority = JournalEntryMapper.priority(of: fields)
        for appIndex in appsByUnit[unitIndex] where !apps[appIndex].pending {
            let app = apps[appIndex]
            batch.cursors[app.id] = cursor
            guard isCoredump || priority <= app.minPriority else { continue }
            if record == nil {
                let unit = router.units[unitIndex]
                let realtime = try journal.realtimeMicroseconds()
                record = isCoredump
                    ? mapper.coredumpRecord(fields, unit: unit, realtimeMicroseconds: realtime, cursor: cursor)
                    : mapper.logRecord(fields, unit: unit, realtimeMicroseconds: realtime, cursor: cursor)
            }
            if let record { batch.records.append(JournalRecord(appID: app.id, record: record)) }
        }
    }

    /// Apps whose starting point the reading has now passed get their entries from here on.
    /// sd-journal reads in the order `JournalPosition` compares, so once passed stays passed.
    private func releaseApps(passedBy cursor: String) {
        let position = JournalPosition(cursor: cursor)
        for index in apps.indices where apps[index].pending {
            // A cursor this code cannot read releases every app: a record sent twice is dropped by
            // the backend (`log.record.uid`), a record never sent is lost.
            let passed = position.map { now in apps[index].threshold.map { now.isAfter($0) } ?? true } ?? true
            if passed {
                apps[index].pending = false
                pendingApps -= 1
            }
        }
    }

    // MARK: Waiting

    private func waitForChanges() async throws {
        var timeout: Duration?
        if let deadline = try journal.processDeadline() {
            let now = Self.monotonicMicroseconds()
            timeout = .microseconds(deadline > now ? Int64(clamping: deadline - now) : 0)
        }
        _ = try await Readiness.wait(descriptor, for: .readable, timeout: timeout)
        if try journal.process() == .invalidated { needsResync = true }
    }

    /// Files came, went or were renamed: the reading's place may be in a file that no longer
    /// exists. Seeking to the last entry read and stepping past it (when it is still there) puts
    /// the reading right after it either way.
    private func resync() throws(JournalError) {
        standingOnUnread = false
        guard let last = lastCursor else {
            try Self.seek(journal, to: initialSeek)
            return
        }
        try journal.seekCursor(last)
        if try journal.next(), try !journal.isAt(last) {
            standingOnUnread = true
        }
    }

    private static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
    }

    // MARK: Where each app starts

    private static func seek(_ journal: Journal, to seek: Seek) throws(JournalError) {
        switch seek {
        case .head: try journal.seekHead()
        case .cursor(let cursor): try journal.seekCursor(cursor)
        }
    }

    private struct Start {
        var apps: [AppState] = []
        var gaps: [JournalGap] = []
        var seek: Seek = .head
    }

    private static func resolveStarts(_ configured: [JournalApp], in journal: Journal) throws(JournalError) -> Start {
        var start = Start()
        var tail: (position: JournalPosition, cursor: String)??
        var earliest: (position: JournalPosition, cursor: String)?
        var fromHead = false
        for app in configured {
            var threshold: (position: JournalPosition, cursor: String)?
            switch app.start {
            case .oldest:
                threshold = nil
            case .now:
                if tail == nil { tail = .some(try lastEntry(journal)) }
                threshold = tail ?? nil
            case .after(let cursor):
                switch try locate(cursor, in: journal) {
                case .found(let position, let exact):
                    threshold = (position, exact)
                case .gone(let position):
                    start.gaps.append(JournalGap(appID: app.id, cursor: cursor, reason: .entryGone))
                    threshold = position.map { ($0, cursor) }
                case .unreadable:
                    start.gaps.append(JournalGap(appID: app.id, cursor: cursor, reason: .unreadableCursor))
                    threshold = nil
                }
            }
            if let threshold {
                if earliest.map({ $0.position.isAfter(threshold.position) }) ?? true { earliest = threshold }
            } else if app.start != .now {
                // `.now` on an empty journal wants everything that comes, which is where head is.
                fromHead = true
            }
            start.apps.append(
                AppState(
                    id: app.id, minPriority: app.minPriority, threshold: threshold?.position,
                    pending: threshold != nil))
        }
        if !fromHead, let earliest { start.seek = .cursor(earliest.cursor) }
        return start
    }

    private enum Located {
        case found(JournalPosition, cursor: String)
        case gone(JournalPosition?)
        case unreadable
    }

    /// Whether the entry a saved cursor names is still there. Seeking to a cursor and stepping
    /// once lands on that entry when it exists, else on the first entry after where it was.
    private static func locate(_ cursor: String, in journal: Journal) throws(JournalError) -> Located {
        do {
            try journal.seekCursor(cursor)
        } catch where error.errno == EINVAL {
            return .unreadable
        }
        let saved = JournalPosition(cursor: cursor)
        if try journal.next(), try journal.isAt(cursor) {
            let exact = try journal.cursor()
            if let position = JournalPosition(cursor: exact) ?? saved { return .found(position, cursor: exact) }
            return .unreadable
        }
        return saved.map { .gone($0) } ?? .unreadable
    }

    /// The last entry any app could want, for apps that start `.now`.
    private static func lastEntry(_ journal: Journal) throws(JournalError) -> (position: JournalPosition, cursor: String)? {
        try journal.seekTail()
        guard try journal.previous() else { return nil }
        let cursor = try journal.cursor()
        return JournalPosition(cursor: cursor).map { ($0, cursor) }
    }
}
