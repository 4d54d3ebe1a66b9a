package import ApsioPOSIX
package import ApsioCore
import ApsioRedaction
import ApsioPlatform
import ApsioNet
import ApsioWire
package import ApsioState

/// One app's ingest (LINUX-PROFILE §1, §4, §9, §11–§13, §15): its journal entries, redacted, through
/// the policy's gate, as OTLP/HTTP protobuf or JSON, gzip- or zstd-compressed, to `POST {Backend}/v1/logs`,
/// losing nothing across a crash.
///
/// The journal is the queue. The exporter pulls the app's entries from the daemon's shared reader
/// (`JournalHub`, through a `JournalSubscription`), from the app's saved position, into a bounded
/// window, and pulls only while the window has room. Two pure machines decide, and the exporter
/// only performs what they ask: `IngestReading` whether to read (consent, the kill switch, skips
/// to the journal's end), `IngestDelivery` when a batch goes and what each answer does. The
/// position (`AppCursor`) moves only once the backend accepted every record before it. Records
/// that are not journal entries (`submit`) go to the app's on-disk `RecordQueue` and leave first
/// (`IngestBacklog`).
///
/// The daemon feeds it: `consent(granted:)` (nothing is read until consent is known),
/// `policyChanged` (records are held until the first policy and then filtered by it), `modes`,
/// `releaseDebug`, `resourceSettled` when told to wait for the Resource, then `start()`; `stop()`
/// at shutdown. A 401 stops sending until `apsiod` restarts.
package actor AppExporter {
    // Internal, not private: the exporter's two halves, reading (`AppExporter+Reading.swift`) and
    // sending (`AppExporter+Delivery.swift`), are extensions in files of their own.
    package nonisolated let configuration: AppExporterConfiguration
    var name: AppName { configuration.app }
    let clock: any AgentClock
    let upload: IngestUpload
    let log: Logger

    var reading = IngestReading()
    var delivery: IngestDelivery
    var sampler: SessionSampler
    /// The families on (the app file's `Families=` and the policy's modes) and the `logs` floor.
    var scope: CaptureScope
    var policy: Policy?
    var releasedUntilUnixMs: Int64?
    /// The configured Resource until the unit's main executable is read (its package's version
    /// and build-id); batches already encoded keep the one they were made with.
    var resource: OTLPResource
    /// The configured encoding, or the other one after a 415 (`IngestDeliveryAction.switchEncoding`).
    var encoding: OTLPEncoding
    var intake: IngestIntake
    var backlog: IngestBacklog
    let cursor: AppCursor

    /// The daemon's shared reader, replaced when it is opened again (`attach`).
    var journal: JournalHub
    var subscription: JournalSubscription?
    /// The `.subscribe`s performed: only the last one's answer is told to the reading.
    var subscriptionRequests: UInt64 = 0
    /// What the app has taken from the journal: where a new subscription or a skip starts.
    var readThrough: JournalStartPoint = .head
    /// Where the journal ended when the exporter was made, for an app whose saved position was
    /// withheld (`IngestReadingAction.releaseWithheld`): found before the daemon serves the app,
    /// so that what is written once it is served is read.
    var endAtSetup: JournalStartPoint?
    /// The saved positions found gone, each counted once: the catch-up reader, opened on the same
    /// position, finds it gone again.
    var gapsCounted: Set<String> = []
    /// The last gap found and not yet told: its record (`JournalGapRecord`) goes before the first
    /// entry of the app read after it, whose time ends its range.
    var untoldGap: JournalGap?
    var reader: (generation: UInt64, task: Task<Void, Never>)?
    var readerGeneration: UInt64 = 0
    var inFlight: (id: IngestRequestID, batch: IngestBacklog.Batch, task: Task<Void, Never>?)?
    var timer: (deadline: MonotonicInstant, task: Task<Void, Never>)?
    var counters = AppExporterCounters()
    /// The reason of the last partial success logged.
    var lastRejection: String?
    /// Bumped each time the exporter has taken in entries or acted on the delivery's decisions:
    /// who waits for its status to move re-checks then.
    nonisolated let activity = ChangeSignal()

    /// `journal`: the daemon's shared reader, which follows this app's unit.
    package init(
        configuration: AppExporterConfiguration, journal: JournalHub, state: StateLayout, clock: any AgentClock,
        transport: any IngestTransport, hashing: some SHA256Hashing,
        log: Logger = .discarding(.ingest), stateLock: StateDirectoryLock? = nil
    ) throws(AppExporterError) {
        self.configuration = configuration
        self.journal = journal
        resource = configuration.resource
        encoding = configuration.encoding
        self.clock = clock
        self.log = log
        upload = IngestUpload(
            encoder: OTLPLogsEncoder(hashing: hashing, limits: configuration.limits),
            gzip: GzipBodyCompressor(level: configuration.gzipLevel), zstd: ZstdBodyCompressor(level: configuration.zstdLevel),
            transport: transport)
        delivery = IngestDelivery(
            limits: configuration.limits, waitsForResource: configuration.waitsForResource, compression: configuration.compression)
        sampler = SessionSampler(hashing: hashing, limits: configuration.limits)
        scope = CaptureScope(appFamilies: configuration.families, policy: nil)
        intake = IngestIntake(
            redactor: configuration.redactor, limits: configuration.limits, rateLimit: configuration.rateLimit,
            unit: configuration.unit)
        cursor = AppCursor(
            layout: state, app: configuration.app, unit: configuration.unit, syncInterval: configuration.cursorSyncInterval, log: log)
        if (try? cursor.saved())?.withheld == true {
            endAtSetup = try? journal.startPoint(of: Self.journalApp(configuration, start: .now)).point
        }
        do {
            try state.makeAppDirectory(configuration.app)
        } catch {
            throw .state(.system(error))
        }
        do {
            backlog = IngestBacklog(
                queue: try RecordQueue(directory: state.queueDirectory(configuration.app), coveredBy: stateLock),
                now: clock.now().mono)
        } catch {
            throw .queue(error)
        }
    }

    static func journalApp(_ configuration: AppExporterConfiguration, start: JournalStart) -> JournalApp {
        JournalApp(
            id: configuration.app.rawValue, unit: configuration.unit, minPriority: configuration.minPriority,
            selection: configuration.selection, start: start)
    }

    // MARK: - What the daemon reads

    package var status: AppExporterCounters {
        var out = counters
        let level = backlog.level
        out.queuedRecords = level.records
        out.queuedBytes = level.bytes
        out.droppedRecords += backlog.queue.counters.dropped
        func chosen(_ now: String, instead configured: String) -> String {
            now == configured ? now : "\(now) (the backend refused \(configured))"
        }
        out.sentAs = chosen(encoding.rawValue, instead: configuration.encoding.rawValue) + ", "
            + chosen(delivery.compression.rawValue, instead: configuration.compression.rawValue)
        return out
    }

    /// The queue's level less the batch on the wire.
    var unsentLevel: (records: Int, bytes: Int) {
        let level = backlog.level
        guard let sent = inFlight, sent.task != nil else { return (level.records, level.bytes) }
        return (max(0, level.records - sent.batch.queueEntries - sent.batch.windowRecords), max(0, level.bytes - sent.batch.bytes))
    }

    // MARK: - Inputs

    /// Finds and saves where the app starts (`IngestResumption`), subscribes to the shared reader
    /// from there, and reads once consent is known.
    package func start() async throws(AppExporterError) {
        guard reading.phase == .notStarted else { return }
        let resumption: IngestResumption
        do {
            resumption = try IngestResumption.resolve(
                Self.journalApp(configuration, start: .now), firstStart: configuration.firstStart, cursor: cursor,
                journal: journal, withheld: reading.withheld, now: clock.now().mono, log: log)
        } catch {
            throw .journal(error)
        }
        readThrough = resumption.point
        countGaps(resumption.gaps, "the journal entry after which sending stopped is gone")
        reportQueue()
        await perform(
            reading.handle(.started(withheldWhenLastRun: resumption.withheldWhenLastRun, endAtSetupKnown: endAtSetup != nil)))
    }

    /// The daemon's shared reader was opened again (the set of apps changed): the app pulls from
    /// the new one, from what it has taken.
    package func attach(_ shared: JournalHub) async {
        guard journal !== shared else { return }
        journal = shared
        await perform(reading.handle(.readerReplaced))
    }

    /// Stops reading and sending, and writes the position. The exporter is not started again.
    package func stop() async {
        guard reading.phase != .stopped else { return }
        let running = reader?.task
        await perform(reading.handle(.stop))
        await running?.value
        inFlight?.task?.cancel()
        inFlight = nil
        timer?.task.cancel()
        timer = nil
        cursor.write(force: true, now: clock.now().mono)
        cursor.close()
        backlog.queue.close()
    }

    package func policyChanged(_ policy: Policy) async {
        let first = self.policy == nil
        self.policy = policy
        scope = CaptureScope(appFamilies: configuration.families, policy: policy.capture)
        if first {
            // 15.3: what was held until now is filtered by this first policy.
            let (passed, removed) = backlog.window.admitHeld { admit($0) }
            counters.filteredRecords += removed
            if let passed { cursor.save(passed, withheld: reading.withheld) }
            reportQueue()
        }
        deliver(delivery.handle(.killSwitch(policy.killSwitch), now: clock.now()))
        deliver(delivery.handle(.policyArrived, now: clock.now()))
        await perform(reading.handle(.killSwitch(policy.killSwitch)))
    }

    /// The Resource learned more (LINUX-PROFILE §2: the executable's package version and build-id).
    package func resourceChanged(_ resource: OTLPResource) {
        self.resource = resource
    }

    /// The Resource is as good as it will soon get: batches may go (`waitsForResource`).
    package func resourceSettled() {
        deliver(delivery.handle(.resourceSettled, now: clock.now()))
    }

    /// The app file's `Consent=`, or the operator's override.
    package func consent(granted: Bool) async {
        let wasKnown = reading.consentKnown
        deliver(delivery.handle(.consent(granted: granted), now: clock.now()))
        await perform(reading.handle(.consent(granted: granted)))
        // What waited for consent to be known: the record queue of the run before, records held.
        if !wasKnown { reportQueue() }
    }

    /// Low Power Mode, Low Data Mode, Data Saver (4.4).
    package func modes(lowPower: Bool, lowData: Bool, dataSaver: Bool) {
        deliver(delivery.handle(.modes(lowPower: lowPower, lowData: lowData, dataSaver: dataSaver), now: clock.now()))
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
        guard !reading.withheld, reading.phase != .stopped else { return redacted }
        do {
            try backlog.submit(LogRecordCodec.encode(redacted), at: clock.now())
            reportQueue()
        } catch {
            log.err("cannot queue a record: \(error)")
        }
        return redacted
    }

    func countGaps(_ gaps: [JournalGap], _ what: String) {
        for gap in gaps where gapsCounted.insert(gap.cursor).inserted {
            counters.journalGaps += 1
            untoldGap = gap
            log.warning("\(what) (\(gap.reason)); what was between it and the oldest entry still there is lost, how many entries is not known")
        }
    }

    func admit(_ record: LogRecord) -> SamplingMark? {
        guard let policy else { return nil }
        let raised = releasedUntilUnixMs.map { clock.now().wallUnixMs < $0 } ?? false
        return IngestGate.admit(record, policy: policy, scope: scope, sampler: &sampler, logLevelRaised: raised)
    }

    /// What `admit` reads besides the record, read once for a whole batch taken at `now` rather
    /// than copied out of the exporter (a retain and a release of each of their arrays and strings)
    /// and the clock read for every record. nil before the first policy: records are held.
    struct BatchGate {
        let policy: Policy
        let scope: CaptureScope
        let raised: Bool
    }

    func batchGate(now: LiveNow) -> BatchGate? {
        guard let policy else { return nil }
        return BatchGate(policy: policy, scope: scope, raised: releasedUntilUnixMs.map { now.wallUnixMs < $0 } ?? false)
    }

    func admit(_ record: LogRecord, gate: borrowing BatchGate) -> SamplingMark? {
        IngestGate.admit(record, policy: gate.policy, scope: gate.scope, sampler: &sampler, logLevelRaised: gate.raised)
    }

    func dropQueue() {
        let dropped = backlog.dropAll()
        intake.forgetDrops()
        // What the gap was before is skipped with the rest.
        untoldGap = nil
        counters.discardedRecords += dropped.records
        if let error = dropped.queueError { log.err("cannot empty the record queue: \(error)") }
    }

}

extension AppExporter: ChangeSource {
    package nonisolated func markChange() -> @Sendable () async throws -> Void { activity.markChange() }
}
