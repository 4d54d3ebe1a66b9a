import ApsioCore
import ApsioState
import ApsioWire

/// The exporter's sending half: it performs what `IngestDelivery` asks, and keeps one timer for the
/// delivery's next deadline and the position's next write.
extension AppExporter {
    /// Tells the delivery what waits. Not before consent is known: the delivery takes consent it
    /// was not told of as refused, and would drop the record queue a run before left (the daemon
    /// applies the policy kept on disk before the operator's consent).
    func reportQueue() {
        guard reading.consentKnown, !reading.withheld else { return }
        deliver(delivery.handle(.queued(backlog.level), now: clock.now()))
    }

    func deliver(_ actions: [IngestDeliveryAction]) {
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
            case .switchEncoding:
                let refused = encoding
                encoding = refused.other
                log.notice("the backend does not take OTLP \(refused.rawValue) (415): batches go as \(encoding.rawValue) from now on, until apsiod restarts (Encoding= in the app file chooses)")
            case .fallBackToGzip(let status):
                log.notice("the backend does not take zstd bodies (\(status)): batches go gzip-compressed from now on, until apsiod restarts (Compression= in the app file chooses)")
            case .stopped:
                counters.stopped = .appKeyUnknown
                counters.lastFailure = "the backend does not know the app key (401); nothing is sent until apsiod restarts"
                log.err("the backend answered 401: it does not know the app key; nothing more is sent for this app until apsiod restarts (the queue is kept)")
            }
        }
        armTimer()
        windowChanged()
        activity.notify()
    }

    func send(_ id: IngestRequestID, limit: IngestBatchLimit) {
        guard policy != nil else { return }
        let now = clock.now()
        // A batch's boundary: drops gathered go into the stream now, behind what is read.
        counted(intake.placeDrops(into: &backlog.window, now: now, holding: false, admit: { admit($0) }))
        let next = backlog.nextBatch(within: limit, now: now.wallUnixMs) { admit($0) }
        counters.filteredRecords += next.filtered
        if let error = next.queueError { log.err("cannot read the record queue: \(error)") }
        for error in next.unreadable {
            counters.droppedRecords += 1
            log.warning("a queued record cannot be read (\(error)); it is dropped")
        }
        guard next.batch.records > 0 else {
            // Everything peeked was kept out by the policy: nothing to send, and nothing to keep.
            inFlight = (id, next.batch, nil)
            deliver(delivery.handle(.answered(id, .status(204, body: [], retryAfter: nil)), now: now))
            return
        }
        let (runs, resource, encoding, compression, upload) = (next.batch.runs, resource, encoding, delivery.compression, upload)
        let task = Task(executorPreference: IngestThread.executor) {
            guard let answer = await upload.post(runs, resource: resource, encoding: encoding, compression: compression) else { return }
            await self.answered(id, answer)
        }
        inFlight = (id, next.batch, task)
    }

    func answered(_ id: IngestRequestID, _ answer: IngestAnswer) {
        guard inFlight?.id == id, reading.phase != .stopped else { return }
        if let partial = answer.partialSuccess { rejected(partial) }
        let actions = delivery.handle(.answered(id, answer.response), now: clock.now())
        // A 415 that switches the encoding, or a refusal of zstd, is no failure: the batch goes
        // again at once.
        if !actions.contains(where: \.resendsOtherwise) {
            let failure: String?
            switch answer.response {
            case .status(let code, _, _) where (200..<300).contains(code): failure = nil
            case .status(let code, _, _): failure = "the backend answered \(code)"
            case .failed: failure = answer.failure ?? "no answer from the backend (refused, reset or timed out)"
            }
            if let failure, counters.lastFailure != failure { log.warning("\(failure); the batch is kept and sent again later") }
            counters.lastFailure = failure
        }
        if inFlight?.id == id, !actions.contains(where: { $0.movesPast(id) }) {
            // Kept for sending again (a failure, a pause, a split): nothing moves.
            inFlight = nil
        }
        deliver(actions)
    }

    /// An accepted batch the backend kept part of: counted, and said once for each new reason (a
    /// receiver that rejects records of every batch would otherwise fill the journal).
    func rejected(_ partial: OTLPPartialSuccess) {
        counters.rejectedRecords += partial.rejectedRecords
        let reason = partial.message ?? "no reason given"
        guard reason != lastRejection else { return }
        lastRejection = reason
        log.warning("the backend accepted a batch but did not keep \(partial.rejectedRecords) of its records (\(reason)); they are not sent again")
    }

    /// The batch was accepted, or dropped by the backend: move past its records and report the queue.
    func finish(_ id: IngestRequestID, accepted: Bool) {
        guard let sent = inFlight, sent.id == id else { return }
        inFlight = nil
        let batch = sent.batch
        let removed = backlog.remove(batch)
        if let error = removed.queueError { log.err("cannot move the record queue past a sent batch: \(error)") }
        if let passed = removed.cursor { cursor.save(passed, withheld: reading.withheld) }
        if accepted {
            counters.sentRecords += batch.records
            if batch.records > 0 { counters.sentBatches += 1 }
        } else {
            counters.droppedRecords += batch.queueEntries + batch.windowRecords
        }
        // Drops gathered behind the batch, with nothing left in the window to take them out at the
        // next batch's boundary: their record goes in now, or it would wait for the unit's next line.
        if backlog.window.isEmpty {
            counted(intake.placeDrops(into: &backlog.window, now: clock.now(), holding: policy == nil, admit: { admit($0) }))
        }
        cursor.write(force: false, now: clock.now().mono)
        reportQueue()
        windowChanged()
    }

    // MARK: - One timer

    /// For the delivery's next deadline and the position's next write.
    func armTimer() {
        guard reading.phase != .stopped else { return }
        let deadline = [delivery.nextDeadline, cursor.nextWriteDue].compactMap { $0 }.min()
        if let timer, timer.deadline == deadline { return }
        timer?.task.cancel()
        timer = nil
        guard let deadline else { return }
        let clock = clock
        let task = Task(executorPreference: IngestThread.executor) {
            guard (try? await clock.sleep(until: deadline)) != nil else { return }
            await self.tick(deadline)
        }
        timer = (deadline, task)
    }

    func tick(_ deadline: MonotonicInstant) {
        guard timer?.deadline == deadline, reading.phase != .stopped else { return }
        timer = nil
        cursor.write(force: false, now: clock.now().mono)
        deliver(delivery.handle(.tick, now: clock.now()))
    }
}
