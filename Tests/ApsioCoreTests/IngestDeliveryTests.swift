import ApsioCore
import ApsioTestSupport
import Testing

/// An app's delivery on a manual clock, with a queue whose level the test sets.
private struct DeliveryHarness {
    var delivery: IngestDelivery
    var now = LiveNow(mono: MonotonicInstant(.seconds(1000)), wallUnixMs: 1_800_000_000_000)
    var log: [IngestDeliveryAction] = []

    /// Ready to send: a policy, consent, no mode holding uploads.
    init(limits: Limits = .spec, ready: Bool = true, waitsForResource: Bool = false, compression: OTLPCompression = .gzip) {
        delivery = IngestDelivery(limits: limits, waitsForResource: waitsForResource, compression: compression)
        if ready {
            send(.policyArrived)
            send(.consent(granted: true))
        }
    }

    @discardableResult
    mutating func send(_ event: IngestDeliveryEvent) -> [IngestDeliveryAction] {
        let actions = delivery.handle(event, now: now)
        log += actions
        return actions
    }

    /// `records` waiting, `bytes` in all, the oldest queued `age` ago.
    @discardableResult
    mutating func queue(_ records: Int, bytes: Int, age: Duration = .zero) -> [IngestDeliveryAction] {
        send(.queued(IngestQueueLevel(records: records, bytes: bytes, oldestAt: now.mono - age)))
    }

    @discardableResult
    mutating func advance(_ duration: Duration) -> [IngestDeliveryAction] {
        now = now.advanced(by: duration)
        return send(.tick)
    }

    @discardableResult
    mutating func answer(_ id: IngestRequestID, _ code: Int, retryAfter: Duration? = nil) -> [IngestDeliveryAction] {
        send(.answered(id, .status(code, body: [], retryAfter: retryAfter)))
    }

    /// The time from now until the delivery's next deadline.
    var untilDeadline: Duration? { delivery.nextDeadline.map { $0 - now.mono } }

    /// A full batch queued and sent at once; its id.
    mutating func sendFullBatch() throws -> IngestRequestID {
        let actions = queue(100, bytes: delivery.limits.ingestBatchBytes)
        return try #require(actions.sent.first?.0)
    }
}

private extension Array where Element == IngestDeliveryAction {
    var sent: [(IngestRequestID, IngestBatchLimit)] {
        compactMap { if case .send(let id, let limit) = $0 { (id, limit) } else { nil } }
    }
}

/// LINUX-PROFILE §1, §4, §12, §13: when a batch goes to `/v1/logs`, and what each answer does.
@Suite struct IngestDeliveryTests {
    // MARK: - Batch bounds

    @Test func defaultsAreNamedInLimits() {
        let l = Limits.spec
        #expect(l.ingestBatchBytes == 512 * 1024)
        #expect(l.ingestBatchAge == .seconds(5))
        #expect(l.ingestRetryInitial == .seconds(1))
        #expect(l.ingestRetryMaximum == .seconds(300))
        #expect(l.lowPowerUploadSpacing == .seconds(300))
        #expect(l.defaultRefusalPause == .seconds(3600))
    }

    @Test func aBatchGoesOnceEnoughBytesWait() {
        var h = DeliveryHarness()
        let bound = h.delivery.limits.ingestBatchBytes
        #expect(h.queue(10, bytes: bound - 1).sent.isEmpty)
        let sent = h.queue(11, bytes: bound).sent
        #expect(sent.count == 1)
        #expect(sent.first?.1 == IngestBatchLimit(maxRecords: 11, maxBytes: bound))
    }

    /// Small records fill a batch by count long before they fill it by bytes: that batch goes at
    /// once too, rather than waiting for its oldest record's age.
    @Test func aBatchGoesOnceAFullBatchOfRecordsWaits() {
        var h = DeliveryHarness()
        let count = h.delivery.limits.ingestBatchRecords
        #expect(h.queue(count - 1, bytes: 1000).sent.isEmpty)
        let sent = h.queue(count, bytes: 1000).sent
        #expect(sent.first?.1 == IngestBatchLimit(maxRecords: count, maxBytes: 1000))
    }

    @Test func aBatchGoesOnceTheOldestRecordIsOldEnough() {
        var h = DeliveryHarness()
        h.queue(1, bytes: 100)
        #expect(h.untilDeadline == .seconds(5))
        #expect(h.advance(.seconds(5) - .milliseconds(1)).sent.isEmpty)
        #expect(h.advance(.milliseconds(1)).sent.count == 1)
    }

    /// A record saying entries were lost (journald's drops, RateLimit='s) is owed to the backend
    /// within 2 s: its batch goes `ingestPromptDelay` after it was queued, not at the batch's age;
    /// Low Power Mode's spacing still holds.
    @Test func aRecordSayingEntriesWereLostGoesPromptly() {
        var h = DeliveryHarness()
        #expect(h.delivery.limits.ingestPromptDelay == .milliseconds(250))
        // Lines waited 3 s already; the record saying entries were lost comes now.
        h.send(.queued(IngestQueueLevel(records: 5, bytes: 500, oldestAt: h.now.mono - .seconds(3), promptSince: h.now.mono)))
        #expect(h.untilDeadline == .milliseconds(250))
        #expect(h.advance(.milliseconds(249)).sent.isEmpty)
        #expect(h.advance(.milliseconds(1)).sent.count == 1)

        var saving = DeliveryHarness()
        saving.send(.modes(lowPower: true, lowData: false, dataSaver: false))
        saving.queue(1, bytes: 100, age: .seconds(5))
        let first = saving.log.sent.first
        #expect(first != nil)
        if let first { saving.answer(first.0, 200) }
        saving.send(.queued(IngestQueueLevel(records: 1, bytes: 100, oldestAt: saving.now.mono, promptSince: saving.now.mono)))
        #expect(saving.advance(.seconds(1)).sent.isEmpty, "Low Power Mode spaces uploads whatever they hold")
    }

    @Test func aBatchAsksForNoMoreThanTheBounds() {
        var h = DeliveryHarness()
        let sent = h.queue(5000, bytes: 10 * h.delivery.limits.ingestBatchBytes).sent
        #expect(sent.first?.1 == IngestBatchLimit(maxRecords: 1000, maxBytes: 512 * 1024))
    }

    @Test func nothingWaitingSendsNothing() {
        var h = DeliveryHarness()
        h.queue(0, bytes: 0)
        #expect(h.delivery.nextDeadline == nil)
        #expect(h.advance(.seconds(3600)).isEmpty)
    }

    // MARK: - What holds sending

    /// 15.3: until the first policy arrives records are held, not sent, and go once it comes.
    @Test func nothingGoesBeforeTheFirstPolicy() {
        var h = DeliveryHarness(ready: false)
        h.send(.consent(granted: true))
        #expect(h.queue(3, bytes: 2 * h.delivery.limits.ingestBatchBytes, age: .seconds(60)).isEmpty)
        #expect(h.delivery.nextDeadline == nil)
        #expect(h.send(.policyArrived).sent.count == 1)
    }

    /// A delivery told to wait for the Resource (the daemon's, until the unit's main executable is
    /// read) sends nothing, not even a full batch, until it is settled; then at once.
    @Test func nothingGoesBeforeTheResourceIsSettled() {
        var h = DeliveryHarness(waitsForResource: true)
        #expect(h.queue(3, bytes: 2 * h.delivery.limits.ingestBatchBytes, age: .seconds(60)).isEmpty)
        #expect(h.delivery.nextDeadline == nil)
        #expect(h.send(.resourceSettled).sent.count == 1)
    }

    @Test func oneRequestInFlightAtATime() throws {
        var h = DeliveryHarness()
        let first = try h.sendFullBatch()
        #expect(h.queue(300, bytes: 3 * h.delivery.limits.ingestBatchBytes).sent.isEmpty)
        #expect(h.delivery.nextDeadline == nil)
        #expect(h.advance(.seconds(60)).isEmpty)
        h.answer(first, 200)
        #expect(h.queue(200, bytes: 2 * h.delivery.limits.ingestBatchBytes).sent.count == 1)
    }

    /// 4.4: Low Data Mode and Data Saver hold uploads, the queue keeps them; they go when it ends.
    @Test func lowDataModeAndDataSaverHoldUploads() {
        for (lowData, dataSaver) in [(true, false), (false, true)] {
            var h = DeliveryHarness()
            h.send(.modes(lowPower: false, lowData: lowData, dataSaver: dataSaver))
            #expect(h.queue(10, bytes: h.delivery.limits.ingestBatchBytes).isEmpty)
            #expect(h.delivery.nextDeadline == nil)
            let resumed = h.send(.modes(lowPower: false, lowData: false, dataSaver: false))
            #expect(resumed.sent.count == 1)
            #expect(!h.log.contains(.dropQueue(.consentWithdrawn)))
        }
    }

    /// 4.4: under Low Power Mode a batch goes at most every 5 minutes.
    @Test func lowPowerSpacesBatchesFiveMinutesApart() throws {
        var h = DeliveryHarness()
        h.send(.modes(lowPower: true, lowData: false, dataSaver: false))
        let first = try h.sendFullBatch()
        h.advance(.seconds(1))
        h.answer(first, 200)
        h.queue(100, bytes: h.delivery.limits.ingestBatchBytes)
        #expect(h.untilDeadline == .seconds(299))
        #expect(h.advance(.seconds(299) - .milliseconds(1)).sent.isEmpty)
        #expect(h.advance(.milliseconds(1)).sent.count == 1)
    }

    @Test func withoutLowPowerTheNextBatchGoesAtOnce() throws {
        var h = DeliveryHarness()
        let first = try h.sendFullBatch()
        h.answer(first, 200)
        #expect(h.queue(100, bytes: h.delivery.limits.ingestBatchBytes).sent.count == 1)
    }

    /// The queue moved past an answered batch only once its owner says so: until then its old
    /// numbers, which still count that batch, send nothing.
    @Test func nothingGoesOnAQueueLevelFromBeforeTheAnswer() throws {
        var h = DeliveryHarness()
        let first = try h.sendFullBatch()
        #expect(h.answer(first, 200) == [.acknowledge(first)])
        #expect(h.delivery.nextDeadline == nil)
        #expect(h.advance(.seconds(60)).isEmpty)
    }

    // MARK: - Consent and kill switch (§12, §13)

    @Test func consentWithdrawnCancelsTheBatchAndDropsTheQueue() throws {
        var h = DeliveryHarness()
        let id = try h.sendFullBatch()
        #expect(h.send(.consent(granted: false)) == [.cancel(id), .dropQueue(.consentWithdrawn)])
        // The cancelled batch's late answer changes nothing.
        #expect(h.answer(id, 200).isEmpty)
        #expect(h.queue(5, bytes: 10) == [.dropQueue(.consentWithdrawn)])
        #expect(h.delivery.nextDeadline == nil)
        #expect(h.advance(.seconds(3600)).isEmpty)
    }

    @Test func consentGrantedAgainSendsAgain() {
        var h = DeliveryHarness()
        h.send(.consent(granted: false))
        h.send(.consent(granted: true))
        #expect(h.queue(10, bytes: h.delivery.limits.ingestBatchBytes).sent.count == 1)
    }

    @Test func noConsentYetSendsNothing() {
        var h = DeliveryHarness(ready: false)
        h.send(.policyArrived)
        #expect(!h.queue(10, bytes: h.delivery.limits.ingestBatchBytes).contains { if case .send = $0 { true } else { false } })
        #expect(h.delivery.nextDeadline == nil)
    }

    @Test func theKillSwitchCancelsDropsAndHoldsUntilLifted() throws {
        var h = DeliveryHarness()
        let id = try h.sendFullBatch()
        #expect(h.send(.killSwitch(true)) == [.cancel(id), .dropQueue(.killSwitch)])
        #expect(h.queue(5, bytes: h.delivery.limits.ingestBatchBytes) == [.dropQueue(.killSwitch)])
        h.send(.killSwitch(false))
        #expect(h.queue(5, bytes: h.delivery.limits.ingestBatchBytes).sent.count == 1)
    }

    // MARK: - Answers (1.5)

    @Test func twoHundredsAcknowledgeTheBatch() throws {
        for code in [200, 202, 204, 299] {
            var h = DeliveryHarness()
            let id = try h.sendFullBatch()
            #expect(h.answer(id, code) == [.acknowledge(id)])
        }
    }

    @Test func fourHundredDropsTheBatchAndCountsIt() throws {
        var h = DeliveryHarness()
        let first = try h.sendFullBatch()
        #expect(h.answer(first, 400) == [.dropBatch(first, .rejected)])
        #expect(h.delivery.rejectedBatches == 1)
        // The next batch goes at once: a 400 is the backend's answer, not a failure to back off from.
        let second = try h.sendFullBatch()
        h.answer(second, 400)
        #expect(h.delivery.rejectedBatches == 2)
    }

    /// 401: the app key is unknown; nothing more goes until a restart, and the queue is kept.
    @Test func fourOhOneStopsSendingAndKeepsTheQueue() throws {
        var h = DeliveryHarness()
        let id = try h.sendFullBatch()
        #expect(h.answer(id, 401) == [.stopped(.appKeyUnknown)])
        #expect(h.delivery.stopReason == .appKeyUnknown)
        #expect(h.queue(500, bytes: 5 * h.delivery.limits.ingestBatchBytes).isEmpty)
        #expect(h.delivery.nextDeadline == nil)
        #expect(h.advance(.seconds(86_400)).isEmpty)
        #expect(!h.log.contains { if case .dropQueue = $0 { true } else { false } })
        // A restart is a new value: it sends again.
        var restarted = DeliveryHarness()
        #expect(restarted.queue(500, bytes: 5 * restarted.delivery.limits.ingestBatchBytes).sent.count == 1)
    }

    /// 415: the receiver does not read this encoding. The batch goes again at once in the other,
    /// and so does every batch after; a 415 to that one too is a failure, backed off from.
    @Test func fourFifteenSwitchesTheEncodingOnceAndSendsAgainAtOnce() throws {
        var h = DeliveryHarness()
        let first = try h.sendFullBatch()
        let actions = h.answer(first, 415)
        #expect(actions.first == .switchEncoding)
        let again = try #require(actions.sent.first?.0)
        #expect(h.delivery.encodingSwitched)
        #expect(h.answer(again, 415).isEmpty)
        #expect(h.untilDeadline == .seconds(1))
        #expect(!h.log.contains { if case .dropBatch = $0 { true } else { false } })
        // A restart is a new value: it tries the configured encoding again.
        #expect(!DeliveryHarness().delivery.encodingSwitched)
    }

    /// A receiver that does not read zstd answers 415 (RFC 9110) or 400 (the OpenTelemetry
    /// collector): the batch goes again at once gzipped, and so does every batch after; nothing is
    /// dropped for it, and a 415 to the gzipped batch then switches the encoding as before.
    @Test(arguments: [400, 415])
    func aRefusedZstdBatchGoesAgainGzippedAtOnce(status: Int) throws {
        var h = DeliveryHarness(compression: .zstd)
        let first = try h.sendFullBatch()
        let actions = h.answer(first, status)
        #expect(actions.first == .fallBackToGzip(status: status))
        #expect(h.delivery.compression == .gzip)
        let again = try #require(actions.sent.first?.0)
        #expect(h.delivery.rejectedBatches == 0)
        #expect(!h.log.contains { if case .dropBatch = $0 { true } else { false } })
        // Gzipped, the batch is what is judged: 415 is the encoding, 400 the batch itself.
        let next = h.answer(again, status)
        if status == 415 {
            #expect(next.first == .switchEncoding)
        } else {
            #expect(next.first == .dropBatch(again, .rejected))
        }
        // A restart is a new value: it tries zstd again.
        #expect(DeliveryHarness(compression: .zstd).delivery.compression == .zstd)
    }

    /// Once the receiver accepted a zstd batch it reads zstd: a later 400 is a malformed batch,
    /// dropped, and a 415 the encoding; zstd stays.
    @Test func afterAnAcceptedZstdBatchA400IsTheBatchsFault() throws {
        var h = DeliveryHarness(compression: .zstd)
        let first = try h.sendFullBatch()
        #expect(h.answer(first, 200).first == .acknowledge(first))
        let second = try h.sendFullBatch()
        #expect(h.answer(second, 400).first == .dropBatch(second, .rejected))
        let third = try h.sendFullBatch()
        #expect(h.answer(third, 415).first == .switchEncoding)
        #expect(h.delivery.compression == .zstd)
        #expect(!h.log.contains { if case .fallBackToGzip = $0 { true } else { false } })
    }

    /// With gzip configured a 400 is what it always was.
    @Test func aGzipBatchRefusedWith400IsDropped() throws {
        var h = DeliveryHarness()
        let first = try h.sendFullBatch()
        #expect(h.answer(first, 400).first == .dropBatch(first, .rejected))
        #expect(h.delivery.compression == .gzip)
    }

    @Test func fourOhTwoAndFourOhThreePauseAnHourByDefault() throws {
        for code in [402, 403] {
            var h = DeliveryHarness()
            let id = try h.sendFullBatch()
            #expect(h.answer(id, code).isEmpty)
            h.queue(100, bytes: h.delivery.limits.ingestBatchBytes)
            #expect(h.untilDeadline == .seconds(3600))
            #expect(h.advance(.seconds(3600) - .milliseconds(1)).sent.isEmpty)
            #expect(h.advance(.milliseconds(1)).sent.count == 1)
            #expect(!h.log.contains { if case .dropQueue = $0 { true } else { false } })
        }
    }

    @Test func fourOhTwoHonoursRetryAfter() throws {
        var h = DeliveryHarness()
        let id = try h.sendFullBatch()
        h.answer(id, 402, retryAfter: .seconds(90))
        #expect(h.untilDeadline == .seconds(90))
    }

    @Test func aRetryAfterBeyondTheMaximumIsReadAsTheMaximum() throws {
        var h = DeliveryHarness()
        let id = try h.sendFullBatch()
        h.answer(id, 403, retryAfter: .seconds(10 * 365 * 86_400))
        #expect(h.untilDeadline == h.delivery.limits.maxRetryAfter)
    }

    /// 413: the batch is split, halving down to one record; one record still too large is dropped
    /// and counted, and the rest goes on in batches of the size that passed.
    @Test func fourThirteenHalvesDownToOneRecordThenDrops() throws {
        var h = DeliveryHarness()
        var id = try #require(h.queue(10, bytes: 1000, age: .seconds(5)).sent.first?.0)
        var sizes: [Int] = []
        while sizes.last != 1, sizes.count < 10 {
            let next = try #require(h.answer(id, 413).sent.first)
            sizes.append(next.1.maxRecords)
            id = next.0
        }
        #expect(sizes == [5, 2, 1])
        #expect(h.answer(id, 413) == [.dropBatch(id, .tooLarge)])
        #expect(h.delivery.tooLargeRecords == 1)
        // The other nine records of the refused batch go one at a time, at once.
        let rest = h.queue(9, bytes: 900, age: .seconds(5)).sent
        #expect(rest.first?.1.maxRecords == 1)
    }

    @Test func fourThirteenHalvesTheBytesToo() throws {
        var h = DeliveryHarness()
        let id = try h.sendFullBatch()
        let retry = h.answer(id, 413).sent
        #expect(retry.first?.1 == IngestBatchLimit(maxRecords: 50, maxBytes: 256 * 1024))
    }

    @Test func afterTheSplitRecordsWentBatchesAreFullSizeAgain() throws {
        var h = DeliveryHarness()
        let id = try #require(h.queue(4, bytes: 400, age: .seconds(5)).sent.first?.0)
        let half = try #require(h.answer(id, 413).sent.first)
        #expect(half.1.maxRecords == 2)
        h.answer(half.0, 200)
        let other = try #require(h.queue(2, bytes: 200, age: .seconds(5)).sent.first)
        #expect(other.1.maxRecords == 2)
        h.answer(other.0, 200)
        let full = try #require(h.queue(2000, bytes: 2 * h.delivery.limits.ingestBatchBytes).sent.first)
        #expect(full.1.maxRecords == h.delivery.limits.ingestBatchRecords)
    }

    /// 429, 5xx, 3xx and network failures: backoff from 1 s doubling to exactly 5 minutes, the queue kept.
    @Test func failuresBackOffDoublingToFiveMinutes() throws {
        var h = DeliveryHarness()
        var id = try h.sendFullBatch()
        var waits: [Duration] = []
        let answers: [LiveResponse] = [
            .failed, .status(500, body: [], retryAfter: nil), .status(503, body: [], retryAfter: nil),
            .status(429, body: [], retryAfter: nil), .status(301, body: [], retryAfter: nil),
            .status(302, body: [], retryAfter: nil), .failed, .status(502, body: [], retryAfter: nil),
            .failed, .failed, .failed,
        ]
        for response in answers {
            #expect(h.send(.answered(id, response)).isEmpty)
            let wait = try #require(h.untilDeadline)
            waits.append(wait)
            #expect(h.advance(wait - .milliseconds(1)).sent.isEmpty)
            id = try #require(h.advance(.milliseconds(1)).sent.first?.0)
        }
        #expect(waits == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300].map { Duration.seconds($0) })
        #expect(!h.log.contains { if case .dropQueue = $0 { true } else { false } })
    }

    @Test func successResetsTheBackoff() throws {
        var h = DeliveryHarness()
        var id = try h.sendFullBatch()
        for _ in 0..<4 {
            h.send(.answered(id, .failed))
            let wait = try #require(h.untilDeadline)
            id = try #require(h.advance(wait).sent.first?.0)
        }
        h.answer(id, 200)
        id = try h.sendFullBatch()
        h.send(.answered(id, .failed))
        #expect(h.untilDeadline == .seconds(1))
    }

    @Test func aRetryAfterLongerThanTheBackoffWins() throws {
        var h = DeliveryHarness()
        let id = try h.sendFullBatch()
        h.answer(id, 429, retryAfter: .seconds(30))
        #expect(h.untilDeadline == .seconds(30))
    }

    @Test func aRetryAfterShorterThanTheBackoffIsOutwaited() throws {
        var h = DeliveryHarness()
        var id = try h.sendFullBatch()
        for _ in 0..<3 {
            h.send(.answered(id, .failed))
            let wait = try #require(h.untilDeadline)
            id = try #require(h.advance(wait).sent.first?.0)
        }
        // The fourth failure backs off 8 s; a Retry-After of 2 s does not shorten it.
        h.answer(id, 503, retryAfter: .seconds(2))
        #expect(h.untilDeadline == .seconds(8))
    }

    @Test func aStaleAnswerForACancelledRequestIsIgnored() throws {
        var h = DeliveryHarness()
        let old = try h.sendFullBatch()
        h.send(.consent(granted: false))
        h.send(.consent(granted: true))
        let current = try h.sendFullBatch()
        #expect(old != current)
        for code in [200, 400, 401, 413, 503] {
            #expect(h.answer(old, code).isEmpty)
        }
        #expect(h.delivery.requestInFlight == current)
        #expect(h.delivery.stopReason == nil)
        #expect(h.answer(current, 200) == [.acknowledge(current)])
    }

    @Test func anAnswerForNoRequestIsIgnored() {
        var h = DeliveryHarness()
        #expect(h.answer(IngestRequestID(value: 99), 401).isEmpty)
        #expect(h.delivery.stopReason == nil)
    }

    // MARK: - No hot loop

    /// Every deadline the delivery gives, ticked at, sends a batch: whatever mixture of events came
    /// before, it never wakes the runtime for nothing and never gives a deadline that stays past.
    @Test func everyDeadlineSendsSomething() {
        var random = SeededRandom(seed: 0x5eed)
        var h = DeliveryHarness(ready: false)
        var ticked = 0
        for _ in 0..<5000 {
            switch random.next() % 9 {
            case 0: h.send(.policyArrived)
            case 1: h.send(.consent(granted: random.next() % 4 != 0))
            case 2: h.send(.killSwitch(random.next() % 5 == 0))
            case 3: h.send(.modes(lowPower: random.next() % 2 == 0, lowData: random.next() % 6 == 0, dataSaver: random.next() % 6 == 0))
            case 4, 5:
                let records = Int(random.next() % 50)
                h.queue(records, bytes: records * Int(random.next() % 20_000), age: .milliseconds(Int64(random.next() % 10_000)))
            case 6:
                if let id = h.delivery.requestInFlight {
                    let codes = [200, 400, 401, 402, 413, 429, 500, 302, 0]
                    let code = codes[Int(random.next() % UInt64(codes.count))]
                    let retry: Duration? = random.next() % 2 == 0 ? .seconds(Int64(random.next() % 600)) : nil
                    h.send(.answered(id, code == 0 ? .failed : .status(code, body: [], retryAfter: retry)))
                    if code == 401 { h = DeliveryHarness(ready: false) }
                }
            default:
                h.advance(.milliseconds(Int64(random.next() % 2000)))
            }
            guard let deadline = h.delivery.nextDeadline else { continue }
            ticked += 1
            #expect(deadline > h.now.mono, "a deadline already due was left unsent")
            h.now = h.now.advanced(by: deadline - h.now.mono)
            #expect(h.send(.tick).sent.count == 1, "a deadline woke the runtime for nothing")
        }
        // The mixture reaches deadlines often enough for the rule to have been checked.
        #expect(ticked > 100)
    }
}
