import ApsioCore
import ApsioPlatform

/// The exporter's reading half: it performs what `IngestReading` asks, and takes what the reader
/// reads into the window.
extension AppExporter {
    func perform(_ actions: [IngestReadingAction]) async {
        var pending = actions[...]
        while let action = pending.popFirst() {
            switch action {
            case .startReader:
                startReader()
            case .stopReader:
                // Its last batch is dropped: its entries were not taken, the position never moved past them.
                reader?.task.cancel()
                reader = nil
            case .subscribe:
                subscriptionRequests += 1
                let request = subscriptionRequests
                let opened = await journal.subscribe(name.rawValue, after: readThrough)
                // Asked for again meanwhile (a new shared reader), or stopped: the later one stands.
                guard request == subscriptionRequests, reading.phase != .stopped else {
                    opened?.close()
                    continue
                }
                subscription?.close()
                subscription = opened
                if opened == nil { log.err("the journal reader does not follow \(configuration.unit); nothing is read") }
                pending += reading.handle(.subscribed(opened != nil))
            case .unsubscribe:
                subscription?.close()
                subscription = nil
            case .skipToEnd:
                await skipToEnd()
                pending += reading.handle(.skipped)
            case .releaseWithheld:
                if case .after = endAtSetup, let endAtSetup { readThrough = endAtSetup }
                cursor.save(readThrough, withheld: false)
                cursor.write(force: true, now: clock.now().mono)
                log.info("consent was withheld when apsiod last ran: what the unit wrote before this start is not sent")
            case .markWithheld:
                cursor.markWithheld(now: clock.now().mono)
            case .dropQueue:
                dropQueue()
            case .setStalled(let stalled):
                subscription?.setStalled(stalled)
            }
        }
        armTimer()
    }

    /// The window's room or what is on the wire changed. `.window` asks only for a reader or the
    /// stall (`IngestReading` holds to it), both done at once.
    func windowChanged() {
        let full = backlog.window.count >= configuration.windowRecords || backlog.window.bytes >= configuration.windowBytes
        for action in reading.handle(.window(hasRoom: !full, sending: inFlight?.task != nil)) {
            switch action {
            case .startReader: startReader()
            case .setStalled(let stalled): subscription?.setStalled(stalled)
            default: log.err("the reading asked for \(action) on a change of its window; it is ignored")
            }
        }
    }

    /// Reads the app's entries from what it has taken to the journal's end, without keeping them.
    /// Saved again with the withholding as it stands, even when the skip found nothing new: a
    /// release must clear the mark the skip before it left, or the next start would skip what is
    /// written from now on (found by apsio-check, seed 1015762240).
    func skipToEnd() async {
        let start: JournalStart
        switch readThrough {
        case .head: start = .oldest
        case .after(let cursor): start = .after(cursor: cursor)
        }
        do {
            let skipped = try await journal.skipToEnd(Self.journalApp(configuration, start: start))
            guard reading.phase != .stopped else { return }
            if let through = skipped.through { readThrough = .after(cursor: through) }
            counters.discardedRecords += skipped.skipped
            cursor.save(readThrough, withheld: reading.withheld)
        } catch {
            log.err("cannot skip to the journal's end: \(error)")
        }
        cursor.write(force: true, now: clock.now().mono)
    }

    func startReader() {
        guard reader == nil, let subscription else { return }
        readerGeneration += 1
        let generation = readerGeneration
        let task = Task(executorPreference: IngestThread.executor) {
            await self.read(from: subscription, generation: generation)
        }
        reader = (generation, task)
    }

    func read(from subscription: JournalSubscription, generation: UInt64) async {
        while !Task.isCancelled {
            let batch: JournalBatch
            do {
                batch = try await subscription.next()
            } catch {
                guard reader?.generation == generation else { return }
                reader = nil
                if !(error is CancellationError) {
                    counters.lastFailure = "cannot read the journal: \(error)"
                    log.err("cannot read the journal: \(error)")
                }
                _ = reading.handle(.readerFailed)
                return
            }
            guard accept(consume batch, generation: generation) else { return }
        }
    }

    /// Takes a batch the reader read into the window. Returns whether the reader goes on.
    func accept(_ batch: consuming JournalBatch, generation: UInt64) -> Bool {
        // A reader being stopped drops its last batch.
        guard reader?.generation == generation, !Task.isCancelled, reading.readerGoesOn else { return false }
        countGaps(subscription?.takeGaps() ?? [], "the journal entry after which reading stood is gone")
        let through = batch.cursors[name.rawValue]
        if let through { readThrough = .after(cursor: through) }
        var part = batch.records.removeValue(forKey: name.rawValue) ?? []
        countJournaldDrops(part)
        if let gap = untoldGap, let next = part.first {
            part.insert(JournalGapRecord.record(for: gap, before: next, unit: configuration.unit), at: 0)
            untoldGap = nil
        }
        let now = clock.now()
        let taken: IngestIntake.Taken
        // The part handed over, not lent: the intake reverses it in place, which copies every
        // record of an array someone else still holds.
        if let gate = batchGate(now: now) {
            taken = intake.take(consume part, through: through, into: &backlog.window, now: now, holding: false) { admit($0, gate: gate) }
        } else {
            taken = intake.take(consume part, through: through, into: &backlog.window, now: now, holding: true) { _ in nil }
        }
        counted(taken)
        reportQueue()
        activity.notify()
        windowChanged()
        guard reading.readerGoesOn else {
            // The window is full: the next room starts a reader again.
            reader = nil
            return false
        }
        return true
    }

    /// Counts what the intake kept out, and saves the position it passed.
    func counted(_ taken: IngestIntake.Taken) {
        counters.filteredRecords += taken.filtered
        counters.rateLimitedRecords += taken.rateLimited
        if let passed = taken.passed {
            cursor.save(passed, withheld: reading.withheld)
            cursor.write(force: false, now: clock.now().mono)
        }
    }

    /// Counts journald's notes of dropped lines as they are read, whatever the policy then does
    /// with their records: what journald lost is known either way.
    func countJournaldDrops(_ part: [LogRecord]) {
        // By index: `for record in part` copies each record out (a retain of each of its strings).
        for index in part.indices {
            guard let count = JournalDropRecord.droppedCount(of: part[index]) else { continue }
            counters.journaldDropNotes += 1
            counters.journaldDroppedLines += Int(clamping: count)
            log.warning("journald dropped \(count) lines of \(configuration.unit) under its rate limit; a record says so")
        }
    }
}
