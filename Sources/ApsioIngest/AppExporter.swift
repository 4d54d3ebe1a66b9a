package import ApsioPOSIX
package import ApsioCore
import ApsioRedaction
import ApsioPlatform
import ApsioNet
package import ApsioState

/// One app's ingest (LINUX-PROFILE §1, §4, §9, §11–§13, §15): its journal entries, redacted, through
/// the policy's gate, as OTLP/HTTP JSON, gzip-compressed, to `POST {Backend}/v1/logs`, when
/// `IngestDelivery` says, losing nothing across a crash.
///
/// The journal is the queue. The exporter pulls the app's entries from the daemon's shared reader
/// (`JournalHub`, through its `JournalSubscription`), from the app's saved cursor, into a bounded
/// window (`IngestWindow`), and pulls only while the window has room. The cursor moves only once the backend accepted every record before it, and is
/// written after each accepted batch, synced to disk now and then (see
/// `AppExporterConfiguration.cursorSyncInterval`) and at `stop()`. Records that are not journal
/// entries (`submit`) go to the app's on-disk `RecordQueue` and are sent from there, ahead of the
/// journal's.
///
/// The daemon feeds it: `consent(granted:)` (nothing is read until consent is known),
/// `policyChanged` (records are held until the first policy and then filtered by it), `modes`,
/// `releaseDebug`, `resourceSettled` when told to wait for the Resource, then `start()`; `stop()`
/// at shutdown. Consent withdrawn or the kill switch drop
/// the queue: the window and the record queue are emptied, the cursor moves to the journal's end,
/// and nothing is read or sent until consent or a policy without the switch comes back, which
/// again starts at the journal's end. A 401 stops sending until `apsiod` restarts.
package actor AppExporter {
    package nonisolated let configuration: AppExporterConfiguration
    private var name: AppName { configuration.app }
    private let clock: any AgentClock
    private let transport: any IngestTransport
    private let encoder: OTLPLogsEncoder
    private let log: Logger

    private var delivery: IngestDelivery
    private var sampler: SessionSampler
    /// The families on (the app file's `Families=` and the policy's modes) and the `logs` floor.
    private var scope: CaptureScope
    private var redaction: RedactionStream
    private var attributeBytes = AttributeMemo<Int>()
    private var policy: Policy?
    private var consent: Bool?
    private var releasedUntilUnixMs: Int64?
    /// The configured Resource until the unit's main executable is read (its package's version
    /// and build-id); batches already encoded keep the one they were made with.
    private var resource: OTLPResource

    private var window = IngestWindow()
    private let cursors: CursorStore
    private let queue: RecordQueue
    /// When the oldest record of the record queue was queued, as far as this run knows.
    private var queueOldestAt: MonotonicInstant?

    /// The shared reader this app pulls from, and whether the exporter opened it for itself (run
    /// without a daemon: the benchmark, tests).
    private var hub: (reader: JournalHub, own: Bool)?
    private var subscription: JournalSubscription?
    /// What the app has taken from the journal: where a new subscription or a skip starts.
    private var readThrough: JournalStartPoint = .head
    /// The saved cursors found gone, each counted once: the catch-up reader, opened on the same
    /// cursor, finds it gone again.
    private var gapsCounted: Set<String> = []
    private var reader: (generation: UInt64, task: Task<Void, Never>)?
    private var readerGeneration: UInt64 = 0
    /// The journal must be skipped to its end before it is read again: what was written while
    /// consent was withdrawn or the kill switch on never leaves.
    private var needsSkip = false
    private var skipping = false
    /// Where the journal ended when the exporter was made, for an app whose saved position was
    /// withheld (`SavedCursor.withheld`): made before the daemon serves the app, so that when
    /// consent was granted while apsiod was stopped, what was written before this start is skipped
    /// and what comes once the app is served is read.
    private var withheldThrough: JournalStartPoint?

    private struct Batch {
        var queueThrough: QueuePosition?
        var queueEntries = 0
        var windowRecords = 0
        var records = 0
        /// As the queue's level counts them (the window's estimates, the record queue's entries).
        var bytes = 0
    }

    private var inFlight: (id: IngestRequestID, batch: Batch, task: Task<Void, Never>?)?
    private var timer: (deadline: MonotonicInstant, task: Task<Void, Never>)?
    private var started = false
    private var stopped = false
    private var counters = AppExporterCounters()
    /// Bumped each time the exporter has taken in entries or acted on the delivery's decisions:
    /// who waits for its status to move re-checks then.
    private nonisolated let activity = ChangeSignal()

    package init(
        configuration: AppExporterConfiguration, state: StateLayout, clock: any AgentClock,
        transport: any IngestTransport, hashing: some SHA256Hashing,
        log: Logger = .discarding(.ingest), stateLock: StateDirectoryLock? = nil
    ) throws(AppExporterError) {
        self.configuration = configuration
        resource = configuration.resource
        self.clock = clock
        self.transport = transport
        self.log = log
        encoder = OTLPLogsEncoder(hashing: hashing, limits: configuration.limits)
        delivery = IngestDelivery(limits: configuration.limits, waitsForResource: configuration.waitsForResource)
        sampler = SessionSampler(hashing: hashing, limits: configuration.limits)
        scope = CaptureScope(appFamilies: configuration.families, policy: nil)
        redaction = RedactionStream(redactor: configuration.redactor, limits: configuration.limits)
        cursors = CursorStore(layout: state, syncInterval: configuration.cursorSyncInterval)
        if (try? cursors.cursor(for: configuration.app))?.withheld == true {
            let app = JournalApp(
                id: configuration.app.rawValue, unit: configuration.unit, minPriority: configuration.minPriority, start: .now)
            withheldThrough = (try? JournalFollower(source: configuration.journal, apps: [app]))?.startPoints[configuration.app.rawValue]
        }
        do {
            try state.makeAppDirectory(configuration.app)
        } catch {
            throw .state(.system(error))
        }
        do {
            queue = try RecordQueue(directory: state.queueDirectory(configuration.app), coveredBy: stateLock)
        } catch {
            throw .queue(error)
        }
    }

    // MARK: - What the daemon reads

    package var status: AppExporterCounters {
        var out = counters
        let level = queueLevel
        out.queuedRecords = level.records
        out.queuedBytes = level.bytes
        out.droppedRecords += queue.counters.dropped
        return out
    }

    // MARK: - Inputs

    /// Opens the journal after the app's saved cursor and starts reading once consent is known.
    ///
    /// An app with no saved cursor, or one saved for another unit (its `Unit=` changed:
    /// `IngestStart`), starts at `firstStart` (`StartAt=`), and that start is saved with the unit and
    /// synced before anything is read: from the moment an app is first served, every entry read
    /// reaches the backend at least once, whatever moment the daemon is killed at. Without it, a
    /// crash before the first accepted batch would start at the journal's end again, past every
    /// entry read so far.
    ///
    /// `hub` is the daemon's shared reader; without one the exporter opens its own.
    package func start(hub shared: JournalHub? = nil) async throws(AppExporterError) {
        guard !started, !stopped else { return }
        let saved: SavedCursor?
        do {
            saved = try cursors.cursor(for: name)
        } catch {
            // A damaged cursor file is reported, and the app starts where a new one would.
            log.warning("\(error); starting as a newly served app")
            saved = nil
        }
        let decision = IngestStart.decide(saved: saved, unit: configuration.unit) { [configuration] cursor in
            // Asked only of a position an earlier apsiod saved; a journal that cannot be opened
            // leaves it this unit's, as that apsiod took it.
            (try? JournalCursorOwner.of(cursor, unit: configuration.unit, in: configuration.journal)) ?? .unknown
        }
        let start: JournalStart
        switch decision {
        case .resume(let resumed): start = resumed
        case .afresh(let reason):
            start = configuration.firstStart
            logStartingAfresh(reason)
        }
        let app = JournalApp(id: name.rawValue, unit: configuration.unit, minPriority: configuration.minPriority, start: start)
        // Where the app starts is found on a journal opened for it alone, and closed again: a
        // saved cursor may name an entry the shared reader's matches would step over.
        let resolved: (point: JournalStartPoint, gaps: [JournalGap])
        do {
            let follower = try JournalFollower(source: configuration.journal, apps: [app])
            resolved = (follower.startPoints[name.rawValue] ?? .head, follower.gaps)
        } catch {
            throw .journal(error)
        }
        readThrough = resolved.point
        if case .afresh = decision {
            switch resolved.point {
            case .head: save(CursorStore.fromHead)
            case .after(let cursor): save(cursor)
            }
            writeCursor(force: true)
        } else if let saved, saved.unit == nil {
            // Kept with its unit from now on: the next start needs no look at the journal.
            save(saved.cursor)
            writeCursor(force: true)
        }
        // Withheld when apsiod last ran: what was written after the position is never sent, even
        // if consent was granted (or the switch turned off) while apsiod was stopped. Released by
        // now, reading starts where the journal ended when the app was set up; still withheld, the
        // journal is skipped to its end as for any withholding.
        if saved?.withheld == true {
            if !blocked, let through = withheldThrough {
                if case .after = through { readThrough = through }
                switch readThrough {
                case .head: save(CursorStore.fromHead)
                case .after(let cursor): save(cursor)
                }
                writeCursor(force: true)
                log.info("consent was withheld when apsiod last ran: what the unit wrote before this start is not sent")
            } else {
                needsSkip = true
            }
        }
        if let shared {
            hub = (shared, false)
        } else {
            do {
                hub = (try JournalHub(source: configuration.journal, apps: [app], log: log), true)
            } catch {
                throw .journal(error)
            }
        }
        for gap in resolved.gaps where gapsCounted.insert(gap.cursor).inserted {
            counters.journalGaps += 1
            log.warning("the journal entry after which sending stopped is gone (\(gap.reason)); what was between it and the oldest entry still there is lost, how many entries is not known")
        }
        started = true
        await subscribe()
        if let hub, hub.own { await hub.reader.start() }
        if queue.counters.records > 0 { queueOldestAt = clock.now().mono }
        reportQueue()
        await adjustReading()
    }

    /// Once, at the start that finds the saved position belongs to another unit: an operator who
    /// sees the unit's history sent (or not, with `StartAt=now`) learns why.
    private func logStartingAfresh(_ reason: IngestStart.Reason) {
        let unit = configuration.unit
        switch reason {
        case .firstServed:
            break
        case .unitChanged(let old):
            log.notice("Unit= is now \(unit), no longer \(old): the position saved among \(old)'s entries means nothing for it, so reading starts where StartAt= says, as for a newly served app (the installation id and queue stay)")
        case .entryOfAnotherUnit:
            log.notice("the saved position is an entry of another unit than \(unit) (Unit= changed): reading starts where StartAt= says, as for a newly served app (the installation id and queue stay)")
        }
    }

    /// The daemon's shared reader was opened again (the set of apps changed): the app pulls from
    /// the new one, from what it has taken.
    package func attach(_ shared: JournalHub) async {
        guard started, !stopped, hub?.reader !== shared else { return }
        await stopReader()
        await leaveHub()
        hub = (shared, false)
        await subscribe()
        await adjustReading()
    }

    private func subscribe() async {
        subscription?.close()
        subscription = await hub?.reader.subscribe(name.rawValue, after: readThrough)
        if hub != nil, subscription == nil { log.err("the journal reader does not follow \(configuration.unit); nothing is read") }
        reportStall()
    }

    private func leaveHub() async {
        subscription?.close()
        subscription = nil
        if let hub, hub.own { await hub.reader.stop() }
        hub = nil
    }

    /// Stops reading and sending, and writes the cursor. The exporter is not started again.
    package func stop() async {
        guard !stopped else { return }
        stopped = true
        await stopReader()
        await leaveHub()
        inFlight?.task?.cancel()
        inFlight = nil
        timer?.task.cancel()
        timer = nil
        writeCursor(force: true)
        cursors.close()
        queue.close()
    }

    package func policyChanged(_ policy: Policy) async {
        let wasBlocked = blocked
        let first = self.policy == nil
        self.policy = policy
        scope = CaptureScope(appFamilies: configuration.families, policy: policy.capture)
        if first {
            // 15.3: what was held until now is filtered by this first policy.
            let raised = logLevelRaised
            let (cursor, removed) = window.admitHeld { [policy, scope] record in
                IngestGate.admit(record, policy: policy, scope: scope, sampler: &sampler, logLevelRaised: raised)
            }
            counters.filteredRecords += removed
            if let cursor { save(cursor) }
            reportQueue()
        }
        perform(delivery.handle(.killSwitch(policy.killSwitch), now: clock.now()))
        perform(delivery.handle(.policyArrived, now: clock.now()))
        blockedMayHaveChanged(from: wasBlocked)
        await adjustReading()
    }

    /// The Resource learned more (LINUX-PROFILE §2: the executable's package version and build-id).
    package func resourceChanged(_ resource: OTLPResource) {
        self.resource = resource
    }

    /// The Resource is as good as it will soon get: batches may go (`waitsForResource`).
    package func resourceSettled() {
        perform(delivery.handle(.resourceSettled, now: clock.now()))
    }

    /// The app file's `Consent=`, or the operator's override.
    package func consent(granted: Bool) async {
        let wasBlocked = blocked
        let wasKnown = consent != nil
        consent = granted
        perform(delivery.handle(.consent(granted: granted), now: clock.now()))
        if !wasKnown, !granted { needsSkip = true }
        blockedMayHaveChanged(from: wasBlocked)
        // What waited for consent to be known: the record queue of the run before, records held.
        if !wasKnown { reportQueue() }
        await adjustReading()
    }

    /// Low Power Mode, Low Data Mode, Data Saver (4.4).
    package func modes(lowPower: Bool, lowData: Bool, dataSaver: Bool) {
        perform(delivery.handle(.modes(lowPower: lowPower, lowData: lowData, dataSaver: dataSaver), now: clock.now()))
        armTimer()
    }

    /// `raise_log_level` (16.6): until then, records below `logs_min_severity` (from DEBUG up) and
    /// of sessions sampling dropped go too, marked `apsio.sampling.released=live`; nil ends it.
    /// A family that is off stays off.
    package func releaseDebug(untilUnixMs: Int64?) {
        releasedUntilUnixMs = untilUnixMs
    }

    /// A record that is not a journal entry (the `diagnostics` command's, a crash seen at start):
    /// redacted, kept in the app's on-disk queue and sent from there.
    ///
    /// With `addingQueueLevel`, it first gets `apsio.queue.records` and `apsio.queue.bytes` (16.6):
    /// the records and bytes read or made and not yet sent, those held before the first policy
    /// included and the batch already handed to the network not. Returns the record as it was
    /// queued; while nothing may leave (consent withdrawn, the kill switch) it is dropped, as the
    /// queue is.
    @discardableResult
    package func submit(_ record: LogRecord, addingQueueLevel: Bool = false) -> LogRecord {
        var record = record
        if addingQueueLevel {
            let unsent = unsentLevel
            record.attributes += [.int("apsio.queue.records", Int64(unsent.records)), .int("apsio.queue.bytes", Int64(unsent.bytes))]
        }
        let redacted = configuration.redactor.redact(record)
        guard !blocked, !stopped else { return redacted }
        let now = clock.now()
        do {
            try queue.append(LogRecordCodec.encode(redacted), at: now.wallUnixMs)
            if queueOldestAt == nil { queueOldestAt = now.mono }
            reportQueue()
        } catch {
            log.err("cannot queue a record: \(error)")
        }
        return redacted
    }

    /// The queue's level less the batch on the wire.
    private var unsentLevel: (records: Int, bytes: Int) {
        let level = queueLevel
        guard let sent = inFlight, sent.task != nil else { return (level.records, level.bytes) }
        return (max(0, level.records - sent.batch.queueEntries - sent.batch.windowRecords), max(0, level.bytes - sent.batch.bytes))
    }

    // MARK: - Consent and the kill switch

    private var blocked: Bool { consent == false || policy?.killSwitch == true }

    private func blockedMayHaveChanged(from wasBlocked: Bool) {
        guard blocked != wasBlocked else { return }
        // Both ways: on the way in, the queue goes; on the way out, what was written meanwhile.
        needsSkip = true
        if blocked {
            dropQueue()
            markWithheld()
        }
    }

    /// The saved position, marked withheld and written now: a crash before the skip that follows
    /// (or while it lasts) must not leave a position from which the next start, consent granted
    /// meanwhile, would send what is being written now. The skip then moves it, still withheld,
    /// and the release clears the mark in the same write as the position after its own skip.
    private func markWithheld() {
        let current: SavedCursor?
        do { current = try cursors.cursor(for: name) } catch {
            log.err("cannot read the journal cursor to mark it withheld: \(error)")
            return
        }
        guard let current, !current.withheld else { return }
        cursors.update(SavedCursor(current.cursor, unit: current.unit ?? configuration.unit, withheld: true), for: name)
        writeCursor(force: true)
    }

    private func dropQueue() {
        counters.discardedRecords += window.count
        window.removeAll()
        do {
            counters.discardedRecords += try queue.dropAll()
        } catch {
            log.err("cannot empty the record queue: \(error)")
        }
        queueOldestAt = nil
    }

    // MARK: - Reading

    private var logLevelRaised: Bool {
        releasedUntilUnixMs.map { clock.now().wallUnixMs < $0 } ?? false
    }

    private var windowHasRoom: Bool {
        window.count < configuration.windowRecords && window.bytes < configuration.windowBytes
    }

    private var readingAllowed: Bool {
        started && !stopped && consent == true && !blocked && !needsSkip && !skipping
    }

    /// Skips to the journal's end when asked to, then reads if allowed and there is room.
    private func adjustReading() async {
        while needsSkip, started, !stopped, !skipping {
            skipping = true
            needsSkip = false
            await stopReader()
            subscription?.close()
            subscription = nil
            // Read through on a journal of the app's own, opened for the skip alone: the shared
            // reader hands over what is written from now on.
            let start: JournalStart
            switch readThrough {
            case .head: start = .oldest
            case .after(let cursor): start = .after(cursor: cursor)
            }
            let app = JournalApp(id: name.rawValue, unit: configuration.unit, minPriority: configuration.minPriority, start: start)
            do {
                let follower = try JournalFollower(source: configuration.journal, apps: [app])
                while let batch = try await follower.nextAvailable() {
                    if let cursor = batch.cursors[name.rawValue] {
                        save(cursor)
                        readThrough = .after(cursor: cursor)
                    }
                    counters.discardedRecords += batch.records.count
                }
                // Saved again with the withholding as it stands, even when the skip found nothing
                // new: a release must clear the mark the skip before it left, or the next start
                // would skip what is written from now on (found by apsio-check, seed 1015762240).
                switch readThrough {
                case .head: save(CursorStore.fromHead)
                case .after(let cursor): save(cursor)
                }
            } catch {
                log.err("cannot skip to the journal's end: \(error)")
            }
            skipping = false
            writeCursor(force: true)
            await subscribe()
        }
        startReaderIfAllowed()
        armTimer()
        reportStall()
    }

    /// Tells the shared reader whether this app can take entries for a while: not while it may
    /// not read, nor while its window is full and nothing is on its way to the backend (a
    /// refusal's backoff, a pause, a hold). Then no reader waits for it.
    private func reportStall() {
        let full = !windowHasRoom && inFlight?.task == nil
        subscription?.setStalled(!readingAllowed || full)
    }

    private func startReaderIfAllowed() {
        guard reader == nil, readingAllowed, windowHasRoom, let subscription else { return }
        readerGeneration += 1
        let generation = readerGeneration
        let task = Task(executorPreference: IngestThread.executor) {
            await self.read(from: subscription, generation: generation)
        }
        reader = (generation, task)
    }

    private func read(from subscription: JournalSubscription, generation: UInt64) async {
        while !Task.isCancelled {
            let batch: JournalBatch
            do {
                batch = try await subscription.next()
            } catch {
                readFailed(error, generation: generation)
                return
            }
            guard accept(consume batch, generation: generation) else { return }
        }
    }

    private func stopReader() async {
        guard let current = reader else { return }
        reader = nil
        current.task.cancel()
        await current.task.value
    }

    private func readFailed(_ error: any Error, generation: UInt64) {
        guard reader?.generation == generation else { return }
        reader = nil
        if !(error is CancellationError) {
            counters.lastFailure = "cannot read the journal: \(error)"
            log.err("cannot read the journal: \(error)")
        }
    }

    /// Takes a batch the reader read into the window. Returns whether the reader goes on.
    private func accept(_ batch: consuming JournalBatch, generation: UInt64) -> Bool {
        // A reader being stopped drops its last batch: the queue is being dropped, or the daemon is
        // stopping and the cursor never moved past it.
        guard reader?.generation == generation, !Task.isCancelled, readingAllowed else { return false }
        for gap in subscription?.takeGaps() ?? [] where gapsCounted.insert(gap.cursor).inserted {
            counters.journalGaps += 1
            log.warning("the journal entry after which reading stood is gone (\(gap.reason)); what was between it and the oldest entry still there is lost, how many entries is not known")
        }
        if let cursor = batch.cursors[name.rawValue] { readThrough = .after(cursor: cursor) }
        let now = clock.now()
        let observed = UInt64(max(now.wallUnixMs, 0)) * 1_000_000
        let raised = logLevelRaised
        // Popped from the end of the reversed part: each record is moved out of the batch, not
        // copied, when (as from the catch-up reader) nobody else holds the part. Reversed through
        // its buffer, whose swaps move memory: `Array.reverse()` copies both records of each swap,
        // a retain and a release for each of their strings.
        var part = batch.records.removeValue(forKey: name.rawValue) ?? []
        part.withUnsafeMutableBufferPointer { $0.reverse() }
        var chunk = IngestWindow.Chunk(reservingCapacity: part.count)
        while var record = part.popLast() {
            redaction.redact(&record)
            var mark: SamplingMark?
            if let policy {
                mark = IngestGate.admit(record, policy: policy, scope: scope, sampler: &sampler, logLevelRaised: raised)
                guard mark != nil else {
                    counters.filteredRecords += 1
                    if let cursor = record.journalCursor, !chunk.extendLast(to: cursor), !window.extendLast(to: cursor) {
                        save(cursor)
                    }
                    continue
                }
            }
            let entry = IngestWindow.Entry(
                held: mark == nil, bytes: IngestWindow.estimatedBytes(record, memo: &attributeBytes),
                cursorAfter: record.journalCursor, queuedAt: now.mono)
            // A held record's mark is a stand-in until the first policy decides (`admitHeld`).
            chunk.append(IngestRecord(consume record, mark: mark ?? .unsampled, observedTimeUnixNano: observed), entry)
        }
        window.append(chunk)
        if let cursor = batch.cursors[name.rawValue], !window.extendLast(to: cursor) {
            save(cursor)
            writeCursor(force: false)
        }
        reportQueue()
        activity.notify()
        guard windowHasRoom else {
            reader = nil
            reportStall()
            return false
        }
        return true
    }

    // MARK: - The queue as the delivery sees it

    private var queueLevel: IngestQueueLevel {
        let stored = queue.counters
        let oldest = [window.oldestQueuedAt, stored.records > 0 ? queueOldestAt : nil].compactMap { $0 }.min()
        return IngestQueueLevel(records: window.count + stored.records, bytes: window.bytes + stored.bytes, oldestAt: oldest)
    }

    /// Tells the delivery what waits. Not before consent is known: the delivery takes consent it
    /// was not told of as refused, and would drop the record queue a run before left (the daemon
    /// applies the policy kept on disk before the operator's consent).
    private func reportQueue() {
        guard consent != nil, !blocked else { return }
        perform(delivery.handle(.queued(queueLevel), now: clock.now()))
    }

    // MARK: - The delivery's actions

    private func perform(_ actions: [IngestDeliveryAction]) {
        for action in actions {
            switch action {
            case .send(let id, let limit):
                send(id, limit: limit)
            case .cancel(let id):
                if inFlight?.id == id {
                    inFlight?.task?.cancel()
                    inFlight = nil
                }
            case .acknowledge(let id):
                finish(id, accepted: true)
            case .dropBatch(let id, let reason):
                if reason == .rejected { counters.rejectedBatches += 1 }
                log.warning("the backend refused a batch (\(reason == .rejected ? "400" : "413 for a single record")); its records are dropped")
                finish(id, accepted: false)
            case .dropQueue:
                dropQueue()
            case .stopped:
                counters.stopped = .appKeyUnknown
                counters.lastFailure = "the backend does not know the app key (401); nothing is sent until apsiod restarts"
                log.err("the backend answered 401: it does not know the app key; nothing more is sent for this app until apsiod restarts (the queue is kept)")
            }
        }
        armTimer()
        reportStall()
        activity.notify()
    }

    private func send(_ id: IngestRequestID, limit: IngestBatchLimit) {
        guard let policy else { return }
        let now = clock.now()
        var batch = Batch()
        var records: [IngestRecord] = []
        // The record queue first: a handful of records a day, each worth more than a log line.
        do {
            let entries = try queue.peek(maxBytes: limit.maxBytes, maxCount: limit.maxRecords, now: now.wallUnixMs)
            batch.queueThrough = entries.last?.position
            batch.queueEntries = entries.count
            batch.bytes = entries.reduce(0) { $0 + QueueEntryFormat.headerSize + $1.payload.count }
            for entry in entries {
                do {
                    let record = try LogRecordCodec.decode(entry.payload)
                    if let mark = IngestGate.admit(
                        record, policy: policy, scope: scope, sampler: &sampler, logLevelRaised: logLevelRaised)
                    {
                        records.append(IngestRecord(record, mark: mark, observedTimeUnixNano: UInt64(max(entry.unixMs, 0)) * 1_000_000))
                    } else {
                        counters.filteredRecords += 1
                    }
                } catch {
                    counters.droppedRecords += 1
                    log.warning("a queued record cannot be read (\(error)); it is dropped")
                }
            }
        } catch {
            log.err("cannot read the record queue: \(error)")
        }
        let usedBytes = records.reduce(0) { $0 + IngestWindow.estimatedBytes($1.record) }
        let taken = window.prefixCount(
            maxRecords: limit.maxRecords - batch.queueEntries, maxBytes: limit.maxBytes - usedBytes,
            atLeastOne: batch.queueEntries == 0)
        // Only records held before the first policy stop a run short, and nothing is sent before it.
        let runs = (records.isEmpty ? [] : [records[...]]) + window.front(taken)
        batch.windowRecords = runs.reduce(0) { $0 + $1.count } - records.count
        batch.records = batch.windowRecords + records.count
        batch.bytes += window.bytes(ofFirst: batch.windowRecords)
        guard batch.records > 0 else {
            // Everything peeked was kept out by the policy: nothing to send, and nothing to keep.
            inFlight = (id, batch, nil)
            perform(delivery.handle(.answered(id, .status(204, body: nil, retryAfter: nil)), now: now))
            return
        }
        let resource = resource
        let encoder = encoder
        let level = configuration.gzipLevel
        let transport = transport
        let task = Task(executorPreference: IngestThread.executor) {
            let response = await Self.post(runs, resource: resource, encoder: encoder, gzipLevel: level, transport: transport)
            guard let response else { return }
            await self.answered(id, response)
        }
        inFlight = (id, batch, task)
    }

    /// Encodes, compresses and sends one batch off the actor, so the reader goes on meanwhile.
    /// nil when cancelled.
    private nonisolated static func post(
        _ runs: [ArraySlice<IngestRecord>], resource: OTLPResource, encoder: OTLPLogsEncoder, gzipLevel: Int32,
        transport: any IngestTransport
    ) async -> IngestAnswer? {
        let json = encoder.encode(app: resource, runs: runs, reusing: IngestScratch.shared.take())
        let compressed = Result { () throws(GzipError) in try Gzip.compress(json, level: gzipLevel) }
        IngestScratch.shared.giveBack(json)
        let body: [UInt8]
        do {
            body = try compressed.get()
        } catch {
            return IngestAnswer(.failed, failure: "the batch cannot be compressed: \(error)")
        }
        do {
            return try await transport.post(gzippedOTLPJSON: body)
        } catch {
            return nil
        }
    }

    private func answered(_ id: IngestRequestID, _ answer: IngestAnswer) {
        guard inFlight?.id == id, !stopped else { return }
        let response = answer.response
        switch response {
        case .status(let code, _, _) where (200..<300).contains(code):
            counters.lastFailure = nil
        case .status(let code, _, _):
            let failure = "the backend answered \(code)"
            if counters.lastFailure != failure { log.warning("\(failure); the batch is kept and sent again later") }
            counters.lastFailure = failure
        case .failed:
            let failure = answer.failure ?? "no answer from the backend (refused, reset or timed out)"
            if counters.lastFailure != failure { log.warning("\(failure); the batch is kept and sent again later") }
            counters.lastFailure = failure
        }
        let actions = delivery.handle(.answered(id, response), now: clock.now())
        if inFlight?.id == id, !actions.contains(where: { Self.movesPast($0, id) }) {
            // Kept for sending again (a failure, a pause, a split): nothing moves.
            inFlight = nil
        }
        perform(actions)
    }

    private static func movesPast(_ action: IngestDeliveryAction, _ id: IngestRequestID) -> Bool {
        switch action {
        case .acknowledge(let acknowledged): acknowledged == id
        case .dropBatch(let dropped, _): dropped == id
        default: false
        }
    }

    /// The batch was accepted, or dropped by the backend: move past its records and report the queue.
    private func finish(_ id: IngestRequestID, accepted: Bool) {
        guard let sent = inFlight, sent.id == id else { return }
        inFlight = nil
        let batch = sent.batch
        if let through = batch.queueThrough {
            do {
                try queue.acknowledge(through: through)
            } catch {
                log.err("cannot move the record queue past a sent batch: \(error)")
            }
            if queue.counters.records == 0 { queueOldestAt = nil }
        }
        if let cursor = window.removeFirst(batch.windowRecords) {
            save(cursor)
        }
        if accepted {
            counters.sentRecords += batch.records
            if batch.records > 0 { counters.sentBatches += 1 }
        } else {
            counters.droppedRecords += batch.queueEntries + batch.windowRecords
        }
        writeCursor(force: false)
        reportQueue()
        startReaderIfAllowed()
        reportStall()
    }

    // MARK: - Timers and the cursor

    /// The position to write next: every cursor the exporter saves is one of its unit's entries
    /// (or the head), read with its unit's matches, and kept with that unit.
    private func save(_ cursor: String) {
        cursors.update(SavedCursor(cursor, unit: configuration.unit, withheld: blocked), for: name)
    }

    private func writeCursor(force: Bool) {
        let now = clock.now().mono
        do {
            if force { try cursors.flush(now: now) } else { try cursors.flushIfDue(now: now) }
        } catch {
            log.err("cannot save the journal cursor: \(error); it is tried again")
            return
        }
        // Written and synced: an idle app holds no descriptor for its cursor file. It is opened
        // again at the next write, so busy ingest keeps it open between syncs.
        if !cursors.hasPendingWrites { cursors.close() }
    }

    /// One timer for the delivery's next deadline and the cursor's next write.
    private func armTimer() {
        guard !stopped else { return }
        let deadline = [delivery.nextDeadline, cursors.nextWriteDue].compactMap { $0 }.min()
        if let timer, timer.deadline == deadline { return }
        timer?.task.cancel()
        timer = nil
        guard let deadline else { return }
        let clock = clock
        let task = Task(executorPreference: IngestThread.executor) {
            do {
                try await clock.sleep(until: deadline)
            } catch {
                return
            }
            await self.tick(deadline)
        }
        timer = (deadline, task)
    }

    private func tick(_ deadline: MonotonicInstant) {
        guard timer?.deadline == deadline, !stopped else { return }
        timer = nil
        writeCursor(force: false)
        perform(delivery.handle(.tick, now: clock.now()))
    }
}

extension AppExporter: ChangeSource {
    package nonisolated func markChange() -> @Sendable () async throws -> Void { activity.markChange() }
}
