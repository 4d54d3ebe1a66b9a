package import ApsioCore
import ApsioPOSIX
package import ApsioPlatform

/// The daemon's journal reading for every app's ingest and for live: one reader at the journal's
/// tail for all of them, and a catch-up reader that exists only while some app is behind
/// (docs/ingest.md, "One reader"). Where each app is served from is `JournalPlacement`'s
/// decision; each app's exporter pulls its entries through its `JournalSubscription`.
///
/// The tail never waits for an app: an app that cannot take its part is parked where it stood.
/// The catch-up reader serves the apps behind in turns, one batch each, each from its own
/// position, and skips an app that has not pulled its last batch: so an app far behind holds back
/// neither live nor the apps at the tail, and a slow or stalled one no other app behind. It is
/// one journal, turned from app to app with its files and mappings kept, and closed when none is
/// behind.
package actor JournalHub {
    package nonisolated let source: JournalSource
    /// Every app the reader matches, by id: its unit and floor.
    private let apps: [String: JournalApp]
    private let tail: JournalFollower
    private var catchUp: CatchUp?
    private var placement = JournalPlacement()
    private var subscriptions: [String: JournalSubscription] = [:]
    /// How many times each app subscribed: a place the catch-up reader found for an app before
    /// its last subscription is not the app's any more.
    private var subscriptionNumbers: [String: Int] = [:]
    /// The app the catch-up reader read for last, so that the next turn goes to the next one.
    private var lastTurn: String?
    private let changes = ChangeSignal()
    private let live: (@Sendable ([String: [LogRecord]]) async -> Void)?
    private let log: Logger
    private var running: Task<Void, Never>?
    private var stopped = false
    /// The catch-up reader could not be opened: said once until it opens again.
    private var catchUpFailed = false

    private struct CatchUp {
        let follower: JournalFollower
        /// Whom the follower reads for now, and from which of its subscriptions; nil while it is
        /// being turned.
        var reading: Turn?
        /// Apps it read everything there is for since the last change, which could not rejoin the
        /// tail (the tail read an entry of theirs written meanwhile): read again after a change.
        var readToEnd: Set<String> = []
    }

    private struct Turn: Equatable {
        let appID: String
        let subscription: Int
    }

    /// `live`: every app's records as the tail reads them, from the moment the reader opened,
    /// whatever ingest does. `unreadableFile` as for `JournalFollower`, from the tail reader.
    package init(
        source: JournalSource, apps: [JournalApp], log: Logger = .discarding(.journal),
        unreadableFile: (@Sendable (UnreadableJournalFile) -> Void)? = nil,
        live: (@Sendable ([String: [LogRecord]]) async -> Void)? = nil
    ) throws(JournalError) {
        self.source = source
        var byID: [String: JournalApp] = [:]
        for app in apps { byID[app.id] = app }
        self.apps = byID
        var atTail = apps
        for index in atTail.indices { atTail[index].start = .now }
        tail = try JournalFollower(source: source, apps: atTail, log: log, unreadableFile: unreadableFile)
        self.live = live
        self.log = log
    }

    /// Starts reading, on the ingest thread; `stop()` ends it. Apps subscribed before it starts
    /// are caught up together, by one catch-up reader opened once.
    package func start() {
        guard running == nil, !stopped else { return }
        running = Task(executorPreference: IngestThread.executor) { await self.run() }
    }

    /// Ends the reading; every subscription's waiting pull ends with `CancellationError`.
    package func stop() async {
        stopped = true
        if let running {
            running.cancel()
            await running.value
        }
        for subscription in subscriptions.values { subscription.close() }
        subscriptions = [:]
        catchUp = nil
    }

    /// The app's ingest reads from here on, after `position`; nil for an app this reader does not
    /// match. A subscription the app held before is closed.
    package func subscribe(_ appID: String, after position: JournalStartPoint) -> JournalSubscription? {
        guard apps[appID] != nil, !stopped else { return nil }
        subscriptions[appID]?.close()
        let subscription = JournalSubscription(appID: appID, changes: changes)
        subscriptions[appID] = subscription
        placement.add(appID, at: position)
        subscriptionNumbers[appID, default: 0] += 1
        changes.notify()
        return subscription
    }

    // MARK: Positions, found apart from the shared reading

    /// Where `app` starts reading from `app.start`, and the saved position found gone if it is.
    /// Found on a journal opened for this alone and closed again: a saved cursor may name an entry
    /// the shared reader's matches would step over.
    package nonisolated func startPoint(of app: JournalApp) throws(JournalError) -> (point: JournalStartPoint, gaps: [JournalGap]) {
        let follower = try JournalFollower(source: source, apps: [app])
        return (follower.startPoints[app.id] ?? .head, follower.gaps)
    }

    /// Whether a position saved without its unit is one of `unit`'s entries (`JournalCursorOwner`).
    package nonisolated func owner(of cursor: String, unit: String) throws(JournalError) -> JournalCursorOwner {
        try JournalCursorOwner.of(cursor, unit: unit, in: source)
    }

    /// Reads `app`'s entries from `app.start` to the journal's end without keeping them: where it
    /// ended (nil when there was nothing after the start) and how many entries it passed. On a
    /// journal of its own, so the shared reader goes on meanwhile and hands over what is written
    /// after.
    package nonisolated func skipToEnd(_ app: JournalApp) async throws(JournalError) -> (through: String?, skipped: Int) {
        let follower = try JournalFollower(source: source, apps: [app])
        var through: String?
        var skipped = 0
        while let batch = try await follower.nextAvailable() {
            if let cursor = batch.cursors[app.id] { through = cursor }
            skipped += batch.records.values.reduce(0) { $0 + $1.count }
        }
        return (through, skipped)
    }

    /// Which reader serves the app now, for tests and status.
    package func place(of appID: String) -> JournalPlacement.Place? { placement.place(of: appID) }
    /// Whether the catch-up reader is open.
    package var catchingUp: Bool { catchUp != nil }

    // MARK: Reading

    private func run() async {
        // Either ending ends both: without the tail nothing joins it, and without the manager
        // nothing is parked.
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.readTail() }
            group.addTask { await self.manage() }
            await group.next()
            group.cancelAll()
        }
    }

    private func readTail() async {
        while !Task.isCancelled {
            let batch: JournalBatch
            do {
                batch = try await tail.next()
            } catch {
                if !Task.isCancelled { log.err("reading the journal failed: \(error)") }
                return
            }
            // Handed over before live is fed: nothing between reading and placing can move an app.
            // Each app is handed its own part; live is given the same parts, not copies.
            for (id, cursor) in batch.cursors {
                guard let part = placement.tailRead(id, records: batch.records[id] ?? [], through: cursor) else { continue }
                if subscriptions[id]?.offer(part) == true {
                    placement.handedOver(id, through: cursor)
                } else {
                    placement.park(id)
                    log.debug("ingest of \(id) cannot take more: the tail reader goes on without it")
                }
            }
            changes.notify()
            if let live, !batch.records.isEmpty { await live(batch.records) }
        }
    }

    private func manage() async {
        while !Task.isCancelled {
            let changed = changes.markChange()
            if await stepCatchUp() {
                await Task.yield()
                continue
            }
            do {
                try await changed()
            } catch {
                break
            }
        }
        catchUp = nil
    }

    /// One move of the catch-up reader. False when nothing more can be done until something changes.
    private func stepCatchUp() async -> Bool {
        for id in placement.behind where subscriptions[id].map({ $0.isClosed || $0.isStalled }) ?? true {
            placement.park(id)
        }
        for id in placement.parked where subscriptions[id]?.wantsEntries == true { placement.fallBehind(id) }
        let behind = placement.behind
        guard !behind.isEmpty else {
            closeCatchUp()
            return false
        }
        guard let id = nextTurn(among: behind) else {
            catchUp?.readToEnd = []
            return false
        }
        let turn = Turn(appID: id, subscription: subscriptionNumbers[id] ?? 0)
        guard let follower = await catchUpReader(for: turn) else { return false }
        let batch: JournalBatch?
        do {
            batch = try await follower.nextAvailable()
        } catch {
            log.err("the catch-up reading of the journal failed: \(error)")
            for id in placement.behind { placement.park(id) }
            catchUp = nil
            return false
        }
        // The app may have subscribed again, or stalled, while it read: hand over only what is
        // still its own.
        guard let current = catchUp, current.follower === follower, current.reading == turn,
            subscriptionNumbers[id] == turn.subscription, placement.place(of: id) == .behind
        else { return true }
        guard var batch else {
            if placement.join(id) {
                log.debug("ingest of \(id) caught up: back at the tail reader")
            } else {
                catchUp?.readToEnd.insert(id)
            }
            if placement.behind.isEmpty { closeCatchUp() }
            return true
        }
        guard let cursor = batch.cursors[id] else { return true }
        // Moved out of the batch, so that the app's part has no other owner and its exporter
        // consumes the records rather than copies them.
        if subscriptions[id]?.offer(batch.takePart(of: id)) == true {
            placement.handedOver(id, through: cursor)
        } else {
            placement.park(id)
        }
        return true
    }

    /// The app behind after the one read for last that has pulled its last batch and has not been
    /// read to the end since the last change: each app behind gets a batch in turn, so none waits
    /// for another's backend.
    private func nextTurn(among behind: [String]) -> String? {
        let ready = behind.filter { id in
            subscriptions[id]?.isBusy != true && catchUp?.readToEnd.contains(id) != true
        }
        if let lastTurn, let next = ready.first(where: { $0 > lastTurn }) { return next }
        return ready.first
    }

    /// The catch-up reader, reading for the turn's app from where that app stands: opened for it,
    /// or turned to it from the app it read for last. One journal serves every turn, read with
    /// one app's matches at a time: sd-journal looks each match up at every step, so a reader of
    /// one unit costs a quarter of a reader of four for each entry.
    private func catchUpReader(for turn: Turn) async -> JournalFollower? {
        lastTurn = turn.appID
        if let catchUp, catchUp.reading == turn { return catchUp.follower }
        guard var app = apps[turn.appID], let position = placement.apps[turn.appID]?.position else { return nil }
        switch position {
        case .head: app.start = .oldest
        case .after(let cursor): app.start = .after(cursor: cursor)
        }
        do {
            let follower: JournalFollower
            let gaps: [JournalGap]
            if let open = catchUp?.follower {
                catchUp?.reading = nil
                gaps = try await open.retarget(to: [app])
                // Closed or opened again meanwhile: this turn is over.
                guard catchUp?.follower === open else { return nil }
                follower = open
            } else {
                follower = try JournalFollower(source: source, apps: [app], log: log)
                gaps = follower.gaps
                catchUp = CatchUp(follower: follower)
                log.debug("the catch-up reader opened")
            }
            catchUp?.reading = turn
            catchUpFailed = false
            for gap in gaps { subscriptions[gap.appID]?.reportGaps([gap]) }
            return follower
        } catch {
            if !catchUpFailed { log.err("the journal cannot be opened to catch up: \(error); it is tried again at the next change") }
            catchUpFailed = true
            catchUp = nil
            for id in placement.behind { placement.park(id) }
            return nil
        }
    }

    private func closeCatchUp() {
        guard catchUp != nil else { return }
        catchUp = nil
        log.debug("the catch-up reader closed: no app is behind")
    }
}
