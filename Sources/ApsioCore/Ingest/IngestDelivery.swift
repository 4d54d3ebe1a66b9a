/// When an app's next batch goes to `POST {Backend}/v1/logs`, and what each answer does to its queue
/// (LINUX-PROFILE §1, §4, §12, §13): one value per app, events in, actions out, no I/O and no clock.
///
/// The runtime owns the queue (the journal and a cursor, or the small on-disk queue) and reports its
/// level with `.queued`; the delivery decides, carries no records, and keeps one batch in flight at
/// most. The runtime calls `handle(.tick, now:)` at `nextDeadline`.
package struct IngestDelivery: Sendable {
    package let limits: Limits

    private var queue = IngestQueueLevel.empty
    /// The queue moved past a batch and has not been reported since: its numbers still count records
    /// that are gone, so nothing is sent on them.
    private var queueStale = false
    package private(set) var policyKnown = false
    /// The Resource the batches go with is as good as it will soon get (the unit's main executable
    /// read, or known to be unreadable): until then nothing goes, so the first batch does not carry
    /// a stand-in `app.build_id` that matches no symbol file.
    package private(set) var resourceSettled: Bool
    private var consentGranted = false
    private var killSwitch = false
    private var lowPower = false
    private var lowData = false
    private var dataSaver = false
    /// Set by a 401; only a new value (a restart of `apsiod`) clears it.
    package private(set) var stopReason: IngestDeliveryAction.StopReason?

    private var inFlight: (id: IngestRequestID, limit: IngestBatchLimit)?
    private var lastRequestNumber: UInt64 = 0
    private var lastSentAt: MonotonicInstant?
    private var backoff: ReconnectBackoff
    /// Nothing goes before this: a backoff after a failure, or the pause a 402 or 403 asked for.
    package private(set) var notBefore: MonotonicInstant?
    private var split: Split?

    /// The backend refused the app's encoding with 415 and the other one is sent since; only a new
    /// value (a restart of `apsiod`) tries the configured one again.
    package private(set) var encodingSwitched = false

    /// How batches are compressed now: the app's `Compression=`, or gzip once the backend refused
    /// zstd; only a new value (a restart of `apsiod`) tries zstd again.
    package private(set) var compression: OTLPCompression
    /// The backend accepted a zstd batch: it reads zstd, and a 400 or 415 after that is about the
    /// batch or its encoding, never the compression.
    private var zstdAccepted = false
    /// zstd is sent and the backend has not shown it reads it.
    private var zstdUnproven: Bool { compression == .zstd && !zstdAccepted }

    /// Batches the backend refused with 400, and single records it refused with 413, since start.
    package private(set) var rejectedBatches = 0
    package private(set) var tooLargeRecords = 0

    /// After a 413 the records of that batch go in smaller batches until all of them were answered;
    /// then batches are full size again.
    private struct Split: Sendable {
        var limit: IngestBatchLimit
        var recordsLeft: Int
    }

    /// `waitsForResource`: nothing is sent until `.resourceSettled`. `compression`: the app's.
    package init(limits: Limits = .spec, waitsForResource: Bool = false, compression: OTLPCompression = .gzip) {
        self.limits = limits
        self.compression = compression
        resourceSettled = !waitsForResource
        backoff = ReconnectBackoff(initial: limits.ingestRetryInitial, maximum: limits.ingestRetryMaximum)
    }

    // MARK: - What the outside may read

    package var requestInFlight: IngestRequestID? { inFlight?.id }

    /// The earliest moment a batch can go; nil while none can (nothing waits, one is in flight, or
    /// sending is held). A tick at this moment always sends, so the runtime never wakes for nothing.
    package var nextDeadline: MonotonicInstant? { sendDueAt }

    // MARK: - Events

    package mutating func handle(_ event: IngestDeliveryEvent, now: LiveNow) -> [IngestDeliveryAction] {
        var actions: [IngestDeliveryAction] = []
        switch event {
        case .queued(let level):
            queue = level
            // A record's age is counted from when it was reported if its owner could not say.
            if queue.records > 0, queue.oldestAt == nil { queue.oldestAt = now.mono }
            queueStale = false
        case .policyArrived:
            policyKnown = true
        case .resourceSettled:
            resourceSettled = true
        case .consent(let granted):
            consentGranted = granted
        case .killSwitch(let on):
            killSwitch = on
        case .modes(let lowPower, let lowData, let dataSaver):
            // A batch already in flight is let finish: it was sent while the network allowed it.
            self.lowPower = lowPower
            self.lowData = lowData
            self.dataSaver = dataSaver
        case .answered(let id, let response):
            if let sent = inFlight, sent.id == id {
                inFlight = nil
                answered(id, limit: sent.limit, response, now: now, &actions)
            }
        case .tick:
            break
        }
        evaluate(now: now, &actions)
        return actions
    }

    // MARK: - The rules, applied after every event

    /// Consent withdrawn or the kill switch: nothing more leaves and the queue goes (§12, §13).
    private var queueDropReason: IngestDeliveryAction.QueueDropReason? {
        if killSwitch { return .killSwitch }
        if !consentGranted { return .consentWithdrawn }
        return nil
    }

    private var sendDueAt: MonotonicInstant? {
        guard policyKnown, resourceSettled, queueDropReason == nil, stopReason == nil, !lowData, !dataSaver, inFlight == nil,
            !queueStale, queue.records > 0
        else { return nil }
        var due: MonotonicInstant
        if queue.bytes >= limits.ingestBatchBytes || queue.records >= limits.ingestBatchRecords || split != nil {
            // A full batch, by bytes or by records, waits for nothing more.
            // The records of a split batch were due already when the batch first went.
            due = .origin
        } else {
            due = (queue.oldestAt ?? .origin) + limits.ingestBatchAge
            // A record saying entries were lost does not wait for the batch's age.
            if let prompt = queue.promptSince { due = min(due, prompt + limits.ingestPromptDelay) }
        }
        if let notBefore { due = max(due, notBefore) }
        if lowPower, let lastSentAt { due = max(due, lastSentAt + limits.lowPowerUploadSpacing) }
        return due
    }

    private mutating func evaluate(now: LiveNow, _ actions: inout [IngestDeliveryAction]) {
        if let reason = queueDropReason {
            if let sent = inFlight {
                inFlight = nil
                actions.append(.cancel(sent.id))
            }
            if queue.records > 0 || queueStale || !actions.isEmpty {
                queue = .empty
                queueStale = false
                split = nil
                actions.append(.dropQueue(reason))
            }
            return
        }
        guard let due = sendDueAt, now.mono >= due else { return }
        var limit = split?.limit ?? IngestBatchLimit(maxRecords: limits.ingestBatchRecords, maxBytes: limits.ingestBatchBytes)
        // Asking for no more than waits makes the halving after a 413 halve what was really sent.
        limit.maxRecords = max(1, min(limit.maxRecords, queue.records))
        limit.maxBytes = max(1, min(limit.maxBytes, queue.bytes))
        lastRequestNumber += 1
        let id = IngestRequestID(value: lastRequestNumber)
        inFlight = (id, limit)
        lastSentAt = now.mono
        actions.append(.send(id, limit: limit))
    }

    // MARK: - Answers (1.5)

    private mutating func answered(
        _ id: IngestRequestID, limit: IngestBatchLimit, _ response: LiveResponse, now: LiveNow,
        _ actions: inout [IngestDeliveryAction]
    ) {
        guard case .status(let code, _, let retryAfter) = response else {
            failed(retryAfter: nil, now: now)
            return
        }
        switch code {
        case 200..<300:
            if compression == .zstd { zstdAccepted = true }
            backendAnswered()
            batchGone(limit.maxRecords)
            actions.append(.acknowledge(id))
        case 400 where zstdUnproven, 415 where zstdUnproven:
            // A receiver that does not read zstd: 415 by RFC 9110, 400 from the OpenTelemetry
            // collector ("unsupported Content-Encoding"). Until it accepted one zstd batch, that is
            // what either means: the batch goes again at once gzipped, and every batch after it;
            // gzip is what every OTLP receiver reads. A batch refused for itself is refused again
            // gzipped, and dropped then; a 415 to the gzipped batch switches the encoding.
            backendAnswered()
            compression = .gzip
            actions.append(.fallBackToGzip(status: code))
        case 400:
            backendAnswered()
            rejectedBatches += 1
            batchGone(limit.maxRecords)
            actions.append(.dropBatch(id, .rejected))
        case 401:
            stopReason = .appKeyUnknown
            actions.append(.stopped(.appKeyUnknown))
        case 402, 403:
            notBefore = now.mono + min(retryAfter ?? limits.defaultRefusalPause, limits.maxRetryAfter)
        case 413:
            backendAnswered()
            if limit.maxRecords <= 1 {
                tooLargeRecords += 1
                batchGone(1)
                actions.append(.dropBatch(id, .tooLarge))
            } else {
                let halved = IngestBatchLimit(maxRecords: limit.maxRecords / 2, maxBytes: max(1, limit.maxBytes / 2))
                split = Split(limit: halved, recordsLeft: split?.recordsLeft ?? limit.maxRecords)
            }
        case 415 where !encodingSwitched:
            // The receiver does not read this encoding (OTLP/HTTP has two): the batch goes again
            // at once in the other, and so does every batch after it. A second 415 is a failure.
            backendAnswered()
            encodingSwitched = true
            actions.append(.switchEncoding)
        default:
            // 429, 5xx, 3xx (no redirect is followed), a 415 to both encodings, and any status 1.5
            // does not name: the queue is kept and the batch goes again later.
            failed(retryAfter: retryAfter, now: now)
        }
    }

    /// The backend answered the batch itself: the next failure starts the backoff afresh.
    private mutating func backendAnswered() {
        backoff.reset()
        notBefore = nil
    }

    /// The caller advances past the batch; a split ends once all the records of the refused batch went.
    private mutating func batchGone(_ records: Int) {
        queueStale = true
        guard var s = split else { return }
        s.recordsLeft -= records
        split = s.recordsLeft > 0 ? s : nil
    }

    /// Exponential backoff from 1 s to 5 min; a longer `Retry-After` wins, up to `maxRetryAfter`.
    private mutating func failed(retryAfter: Duration?, now: LiveNow) {
        let wait = max(backoff.nextDelay(), min(retryAfter ?? .zero, limits.maxRetryAfter))
        notBefore = now.mono + wait
    }
}
