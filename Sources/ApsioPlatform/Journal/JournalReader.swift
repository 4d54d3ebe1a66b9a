import ApsioCore
#if canImport(Glibc)
internal import Glibc
#endif

/// The synchronous half of the follower: reads the entries that are there, routes each to its
/// apps and maps it, and knows where each app starts. It is a value the follower owns, so the hot
/// loop touches plain struct fields rather than an actor's (which Swift checks at run time on
/// every access).
///
/// Each app resumes at its own cursor although there is one reader: reading starts at the
/// earliest of the apps' starting points and, until it passes an app's point, leaves that app's
/// entries out (`JournalPosition` says where an entry sits).
///
/// Not copyable, as the entry buffer it owns is not.
struct JournalReader: ~Copyable {
    private struct AppState {
        let id: String
        let minPriority: Int
        /// `Match=` and `Exclude=`; nil when they choose every line.
        let filter: JournalEntryFilter?
        /// The app has had every entry up to here (its saved cursor, or the tail for `.now`).
        let threshold: JournalPosition?
        /// The reading has not passed `threshold` yet: the app's entries are left out.
        var pending: Bool
        /// The cursor of the app's last entry in the batch being read.
        var batchCursor: String?
        /// How many records the app's part of the last batch held: the next part's room, made at
        /// once. Grown record by record, a part of a few hundred records is allocated, copied and
        /// freed eight times over, and those frees of growing sizes are what keeps malloc busy.
        var lastPartCount = 0
    }

    private enum Seek {
        case head
        case cursor(String)
    }

    private(set) var journal: Journal
    /// The apps whose saved cursor named an entry no longer there, found when the reader opened.
    let gaps: [JournalGap]
    /// Where each app's reading starts, by app id.
    let startPoints: [String: JournalStartPoint]
    private let router: JournalRouter
    private let limits: JournalReadLimits
    private let appsByUnit: [[Int]]
    private let initialSeek: Seek
    private var apps: [AppState]
    private var pendingApps: Int
    private var fields: JournalEntryFields
    private var mapper: JournalEntryMapper
    /// Each unit's latest lines, for the range of journald's notes of dropped lines.
    private var suppression: JournaldSuppression
    /// The session ids made so far, for a reader that takes over the journal (`JournalFollower.retarget`).
    var sessions: JournalSessionCache { mapper.sessions }

    /// The cursor of the last entry the reading stood on, whether or not an app wanted it.
    private var lastCursor: String?
    /// After a re-seek, the reading already stands on an entry it has not taken.
    private var standingOnUnread = false
    /// The reading stands on the entry of `lastCursor`: a journal opened afresh can be put back
    /// exactly here. After an entry no app wanted it stands past it, and a new opening would read
    /// those entries again, so it waits for the next entry an app wants.
    private(set) var standsOnLastEntry = false

    init(
        journal: Journal, apps configured: [JournalApp], limits: JournalReadLimits, sessions: JournalSessionCache = JournalSessionCache()
    ) throws(JournalError) {
        let router = JournalRouter(units: configured.map(\.unit))
        try Self.prepare(journal, for: router, limits: limits)
        let start = try Self.resolveStarts(configured, in: journal)
        if !start.standsThere { try Self.seek(journal, to: start.seek) }

        self.journal = journal
        self.router = router
        self.limits = limits
        fields = JournalEntryFields(limits: limits.record, maxUserFields: limits.maxUserFields)
        mapper = JournalEntryMapper(sessions: sessions)
        suppression = JournaldSuppression(units: router.units.count)
        appsByUnit = router.units.map { unit in configured.indices.filter { configured[$0].unit == unit } }
        apps = start.apps
        pendingApps = start.apps.filter(\.pending).count
        initialSeek = start.seek
        gaps = start.gaps
        startPoints = start.points
    }

    // MARK: Reading

    /// Reads up to a batch; `atEnd` when it read everything there is.
    mutating func read() throws(JournalError) -> (batch: JournalBatch, atEnd: Bool) {
        var parts = apps.map { app -> [LogRecord] in
            var part: [LogRecord] = []
            // An eighth more, so that a part a little longer than the last is not copied whole.
            part.reserveCapacity(app.lastPartCount + app.lastPartCount / 8)
            return part
        }
        var made = 0
        var looked = 0
        var atEnd = false
        while made < limits.maxRecordsPerBatch, looked < limits.maxEntriesPerBatch {
            if standingOnUnread {
                standingOnUnread = false
            } else if try !journal.next() {
                atEnd = true
                break
            }
            standsOnLastEntry = false
            looked += 1
            made += try take(into: &parts)
        }
        var batch = JournalBatch()
        for index in apps.indices {
            apps[index].lastPartCount = parts[index].count
            guard let cursor = apps[index].batchCursor else { continue }
            batch.cursors[apps[index].id] = cursor
            apps[index].batchCursor = nil
            if !parts[index].isEmpty { batch.records[apps[index].id] = parts[index] }
        }
        return (batch, atEnd)
    }

    /// Routes the entry the reading stands on to its apps' parts. Returns how many got its record.
    private mutating func take(into parts: inout [[LogRecord]]) throws(JournalError) -> Int {
        fields.reset()
        try journal.forEachField { fields.add($0) }
        // An entry the matches let through that routes to no app (a coredump report written by
        // another service, a note of dropped lines whose count cannot be read) needs no cursor:
        // libsystemd formats one with printf at each call.
        guard let route = router.route(fields) else { return 0 }
        var dropped: Int64?
        if case .suppression = route {
            guard let count = JournaldSuppression.droppedCount(fields) else { return 0 }
            dropped = count
        }
        let cursor = try journal.cursor()
        lastCursor = cursor
        standsOnLastEntry = true
        if pendingApps > 0 { releaseApps(passedBy: cursor) }
        let unitIndex: Int
        /// Coredumps and notes of dropped lines reach the app whatever its `MinPriority=`.
        let always: Bool
        switch route {
        case .unit(let index): (unitIndex, always) = (index, false)
        case .coredump(let index), .suppression(let index): (unitIndex, always) = (index, true)
        }

        // The apps that get the record, found before it is made: most entries go to one app, and
        // the record is then moved into its part rather than copied.
        let priority = JournalEntryMapper.priority(of: fields)
        func takes(_ app: AppState) -> Bool {
            always || (priority <= app.minPriority && app.filter.map { $0.admits(fields) } ?? true)
        }
        var lastTaker: Int?
        for appIndex in appsByUnit[unitIndex] where !apps[appIndex].pending {
            apps[appIndex].batchCursor = cursor
            if takes(apps[appIndex]) { lastTaker = appIndex }
        }
        let unit = router.units[unitIndex]
        var realtime: UInt64?
        if case .unit = route {
            // Every line of the unit, taken or not, bounds where journald's next note of dropped
            // lines starts.
            let time = try journal.realtimeMicroseconds()
            suppression.noteLine(unit: unitIndex, priority: priority, realtime: time)
            realtime = time
        }
        guard let lastTaker else {
            // No app takes the line, but it still says which session its process is in, which a
            // later report of that process's crash takes.
            if case .unit = route { mapper.noteWriter(fields, unit: unit, cursor: cursor) }
            return 0
        }
        let time: UInt64
        if let realtime { time = realtime } else { time = try journal.realtimeMicroseconds() }
        let record: LogRecord
        switch route {
        case .unit:
            record = mapper.logRecord(fields, unit: unit, unitIndex: unitIndex, realtimeMicroseconds: time, cursor: cursor)
        case .coredump:
            record = mapper.coredumpRecord(fields, unit: unit, realtimeMicroseconds: time, cursor: cursor)
        case .suppression:
            record = suppression.record(
                fields, count: dropped ?? 0, unit: unit, unitIndex: unitIndex, realtimeMicroseconds: time, cursor: cursor)
        }
        var takers = 1
        for appIndex in appsByUnit[unitIndex]
        where appIndex != lastTaker && !apps[appIndex].pending && takes(apps[appIndex]) {
            parts[appIndex].append(record)
            takers += 1
        }
        parts[lastTaker].append(record)
        return takers
    }

    /// Apps whose starting point the reading has now passed get their entries from here on.
    /// sd-journal reads in the order `JournalPosition` compares, so once passed stays passed.
    private mutating func releaseApps(passedBy cursor: String) {
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

    /// Files came, went or were renamed: the reading's place may be in a file that no longer
    /// exists. Seeking to the last entry read and stepping past it (when it is still there) puts
    /// the reading right after it either way.
    mutating func resync() throws(JournalError) {
        standingOnUnread = false
        standsOnLastEntry = false
        guard let last = lastCursor else {
            try Self.seek(journal, to: initialSeek)
            return
        }
        standingOnUnread = try Self.place(journal, after: last)
    }

    /// Goes on reading from `fresh`, another opening of the same journal, right after the last
    /// entry read (`standsOnLastEntry`). When this throws, the reading goes on where it was.
    mutating func move(to fresh: Journal) throws(JournalError) {
        guard let last = lastCursor else { throw JournalError("JournalReader", errno: EINVAL, detail: "nothing read yet") }
        try Self.prepare(fresh, for: router, limits: limits)
        let onUnread = try Self.place(fresh, after: last)
        journal = fresh
        standingOnUnread = onUnread
        standsOnLastEntry = false
    }

    /// Puts the reading right after the entry `cursor` names: seeks there and steps past it when
    /// it is still there. True when the step landed on the entry after it (where the entry was, it
    /// is gone): the reading stands on an entry it has not taken.
    private static func place(_ journal: Journal, after cursor: String) throws(JournalError) -> Bool {
        try journal.seekCursor(cursor)
        if try journal.next(), try !journal.isAt(cursor) { return true }
        return false
    }

    /// The field cut and the matches of `router`'s units on `journal`, which may have been read
    /// for other apps before (`JournalFollower.retarget`).
    static func prepare(_ journal: Journal, for router: JournalRouter, limits: JournalReadLimits) throws(JournalError) {
        try journal.setDataThreshold(limits.maxFieldBytes)
        try journal.flushMatches()
        for (index, group) in router.matchGroups.enumerated() {
            if index > 0 { try journal.addDisjunction() }
            for match in group { try journal.addMatch(match) }
        }
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
        var points: [String: JournalStartPoint] = [:]
        var seek: Seek = .head
        /// The journal already stands on the entry `seek` names: the last look found it there.
        /// The next step reads the entry after it, which seeking again would read only after
        /// reading that one once more (a reader turned to an app behind pays this at each turn).
        var standsThere = false
    }

    private static func resolveStarts(_ configured: [JournalApp], in journal: Journal) throws(JournalError) -> Start {
        var start = Start()
        var tail: (position: JournalPosition, cursor: String)??
        var earliest: (position: JournalPosition, cursor: String)?
        var fromHead = false
        /// The cursor of the entry the journal stands on after the last look, when a look found one.
        var standingOn: String?
        for app in configured {
            standingOn = nil
            var threshold: (position: JournalPosition, cursor: String)?
            switch app.start {
            case .oldest:
                threshold = nil
            case .now:
                if tail == nil { tail = .some(try lastEntry(journal)) }
                threshold = tail ?? nil
            case .boot(let bootID):
                switch try lastEntry(before: bootID, in: journal) {
                case .before(let position, let cursor):
                    threshold = (position, cursor)
                case .bootIsFirst:
                    threshold = nil
                case .noEntryOfBoot:
                    // Nothing of this boot yet: everything that comes is, which is `.now`.
                    if tail == nil { tail = .some(try lastEntry(journal)) }
                    threshold = tail ?? nil
                }
            case .after(let cursor):
                switch try locate(cursor, in: journal) {
                case .found(let position, let exact):
                    threshold = (position, exact)
                    standingOn = exact
                case .gone(let position):
                    start.gaps.append(JournalGap(appID: app.id, cursor: cursor, reason: .entryGone))
                    threshold = (position, cursor)
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
            start.points[app.id] = threshold.map { .after(cursor: $0.cursor) } ?? .head
            start.apps.append(
                AppState(
                    id: app.id, minPriority: app.minPriority,
                    filter: app.selection.isEverything ? nil : JournalEntryFilter(app.selection), threshold: threshold?.position,
                    pending: threshold != nil))
        }
        if !fromHead, let earliest {
            start.seek = .cursor(earliest.cursor)
            start.standsThere = standingOn == earliest.cursor
        }
        return start
    }

    private enum BootStart {
        /// The entry just before the boot's first.
        case before(JournalPosition, cursor: String)
        /// The boot's first entry is the oldest there is.
        case bootIsFirst
        case noEntryOfBoot
    }

    /// Where the entries of a boot start, among the entries the matches let through.
    private static func lastEntry(before bootID: String, in journal: Journal) throws(JournalError) -> BootStart {
        try journal.seekMonotonic(bootID: bootID, microseconds: 0)
        guard try journal.next(), let first = JournalPosition(cursor: try journal.cursor()), first.bootID == bootID
        else { return .noEntryOfBoot }
        // Step back to the last entry of another boot: the seek may land past the boot's first
        // entry when its files interleave, and none of the boot's may be skipped.
        while try journal.previous() {
            let cursor = try journal.cursor()
            guard let position = JournalPosition(cursor: cursor) else { return .bootIsFirst }
            if position.bootID != bootID { return .before(position, cursor: cursor) }
        }
        return .bootIsFirst
    }

    private enum Located {
        case found(JournalPosition, cursor: String)
        case gone(JournalPosition)
        case unreadable
    }

    /// Whether the entry a saved cursor names is still there. Seeking to a cursor and stepping
    /// once lands on that entry when it exists, else on the first entry after where it was.
    private static func locate(_ cursor: String, in journal: Journal) throws(JournalError) -> Located {
        guard let saved = JournalPosition(cursor: cursor) else { return .unreadable }
        do {
            try journal.seekCursor(cursor)
        } catch where error.errno == EINVAL {
            return .unreadable
        }
        if try journal.next(), try journal.isAt(cursor) {
            let exact = try journal.cursor()
            return .found(JournalPosition(cursor: exact) ?? saved, cursor: exact)
        }
        return .gone(saved)
    }

    /// The last entry any app could want, for apps that start `.now`.
    private static func lastEntry(_ journal: Journal) throws(JournalError) -> (position: JournalPosition, cursor: String)? {
        try journal.seekTail()
        guard try journal.previous() else { return nil }
        let cursor = try journal.cursor()
        return JournalPosition(cursor: cursor).map { ($0, cursor) }
    }
}
