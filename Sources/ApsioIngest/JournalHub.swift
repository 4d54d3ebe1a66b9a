package import ApsioCore
import ApsioPOSIX
package import ApsioPlatform

/// The daemon's journal reading for every app's ingest and for live: one reader at the journal's
/// tail for all of them, and a catch-up reader that exists only while some app is behind
/// (docs/ingest.md, "One reader"). Where each app is served from is `JournalPlacement`'s
/// decision; each app's exporter pulls its entries through its `JournalSubscription`.
///
/// The tail never waits for an app: an app that cannot take its part is parked where it stood.
/// The catch-up reader serves every app that is behind from the earliest of their positions,
/// waiting for each to pull, and stops serving an app that stalls (its backend refuses or it may
/// not send): so an app far behind holds back neither live nor the apps at the tail, and a stalled
/// one no other app behind. The catch-up reader is opened again, from the positions of the apps
/// it serves, when an app it does not serve falls behind; it is closed when none is behind.
package actor JournalHub {
    package nonisolated let source: JournalSource
    /// Every app the reader matches, by id: its unit and floor.
    private let apps: [String: JournalApp]
    private let tail: JournalFollower
    private var catchUp: CatchUp?
    private var placement = JournalPlacement()
    private var subscriptions: [String: JournalSubscription] = [:]
    private let changes = ChangeSignal()
    private let live: (@Sendable ([String: [LogRecord]]) async -> Void)?
    private let log: Logger
    private var running: Task<Void, Never>?
    private var stopped = false
    /// The catch-up reader could not be opened: said once until it opens again.
    private var catchUpFailed = false

    private struct CatchUp {
        let follower: JournalFollower
        /// The apps whose entries it hands over: those behind when it opened, less those that
        /// stalled or subscribed again since (its place for them is no longer theirs).
        var serving: Set<String>
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
        tail = try JournalFollower(source: source, apps: atTail, unreadableFile: unreadableFile)
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
        catchUp?.serving.remove(appID)
        changes.notify()
        return subscription
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
            catchUp?.serving.remove(id)
        }
        for id in placement.parked where subscriptions[id]?.wantsEntries == true { placement.fallBehind(id) }
        let behind = placement.behind
        guard !behind.isEmpty else {
            closeCatchUp()
            return false
        }
        if catchUp.map({ !Set(behind).isSubset(of: $0.serving) }) ?? true {
            guard openCatchUp(for: behind) else { return false }
        }
        // Each app pulls what it was handed before the next read: the catch-up reader goes at the
        // pace of the apps it serves, and holds no more than one batch for each.
        guard let reader = catchUp, !behind.contains(where: { subscriptions[$0]?.isBusy == true }) else { return false }
        let batch: JournalBatch?
        do {
            batch = try await reader.follower.nextAvailable()
        } catch {
            log.err("the catch-up reading of the journal failed: \(error)")
            for id in behind { placement.park(id) }
            catchUp = nil
            return false
        }
        // Subscriptions may have changed while it read: hand over only to the apps it still serves.
        guard let current = catchUp, current.follower === reader.follower else { return true }
        guard var batch else {
            // Everything there is has been read: every app the tail has not overtaken joins it.
            for id in behind where current.serving.contains(id) && placement.join(id) {
                catchUp?.serving.remove(id)
                log.debug("ingest of \(id) caught up: back at the tail reader")
            }
            if placement.behind.isEmpty { closeCatchUp() }
            return false
        }
        for (id, cursor) in batch.cursors where current.serving.contains(id) && placement.place(of: id) == .behind {
            // Moved out of the batch, so that the app's part has no other owner and its exporter
            // consumes the records rather than copies them.
            if subscriptions[id]?.offer(batch.takePart(of: id)) == true {
                placement.handedOver(id, through: cursor)
            } else {
                placement.park(id)
                catchUp?.serving.remove(id)
            }
        }
        return true
    }

    private func openCatchUp(for ids: [String]) -> Bool {
        catchUp = nil
        let wanted = ids.compactMap { id -> JournalApp? in
            guard var app = apps[id], let position = placement.apps[id]?.position else { return nil }
            switch position {
            case .head: app.start = .oldest
            case .after(let cursor): app.start = .after(cursor: cursor)
            }
            return app
        }
        do {
            // A batch as large for each app as one reader of its own would read: each hand-over is
            // then worth its pull, its actor hop and its window's bookkeeping.
            var limits = JournalReadLimits.standard
            limits.maxRecordsPerBatch *= max(1, wanted.count)
            limits.maxEntriesPerBatch *= max(1, wanted.count)
            let follower = try JournalFollower(source: source, apps: wanted, limits: limits)
            for gap in follower.gaps { subscriptions[gap.appID]?.reportGaps([gap]) }
            catchUp = CatchUp(follower: follower, serving: Set(ids))
            catchUpFailed = false
            log.debug("the catch-up reader opened for \(ids.joined(separator: ", "))")
            return true
        } catch {
            if !catchUpFailed { log.err("the journal cannot be opened to catch up: \(error); it is tried again at the next change") }
            catchUpFailed = true
            for id in ids { placement.park(id) }
            return false
        }
    }

    private func closeCatchUp() {
        guard catchUp != nil else { return }
        catchUp = nil
        log.debug("the catch-up reader closed: no app is behind")
    }
}
