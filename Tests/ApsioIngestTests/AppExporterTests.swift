import ApsioCore
import ApsioNet
import ApsioPOSIX
import ApsioPlatform
import Foundation
@testable import ApsioTestSupport
import Testing
import ApsioIngest
import ApsioState
import ApsioWire

/// One app's ingest on real journal files, a manual clock and a scripted backend: what is held,
/// what is sent, what a failing backend costs, and what consent and the kill switch drop.
@Suite(.serialized) struct AppExporterTests {
    final class Host: @unchecked Sendable {
        let journal: JournalFixture
        let state: TemporaryDirectory
        let clock = ManualAgentClock()
        let sink = ScriptedIngestSink()
        let exporter: AppExporter
        let reader: JournalHub
        let log = LogLines()

        init(limits: Limits = .spec, encoding: OTLPEncoding = .json, compression: OTLPCompression = .gzip) async throws {
            journal = try JournalFixture()
            state = try TemporaryDirectory("apsio-ingest-state")
            reader = try await IngestFixture.reader(journal)
            var configuration = try IngestFixture.configuration(journal: journal, limits: limits)
            configuration.encoding = encoding
            configuration.compression = compression
            exporter = try AppExporter(
                configuration: configuration, journal: reader,
                state: StateLayout(root: state.path), clock: clock, transport: sink, hashing: OpenSSLSHA256(),
                log: log.logger())
        }

        /// Another run of the app's exporter, on the same state and shared reader.
        func nextRun() throws -> AppExporter {
            try AppExporter(
                configuration: try IngestFixture.configuration(journal: journal), journal: reader,
                state: StateLayout(root: state.path), clock: clock, transport: sink, hashing: OpenSSLSHA256())
        }

        func stop(_ exporters: AppExporter...) async {
            await exporter.stop()
            for other in exporters { await other.stop() }
            await reader.stop()
        }

        func lines(_ messages: [String], priority: Int = 6) async throws {
            try await journal.write(messages.map { journal.entry(unit: IngestFixture.unit, message: $0, priority: priority) })
        }

        var sentBodies: [String] { sink.accepted.flatMap(SentRecord.all(in:)).map(\.body) }

        func waitQueued(_ records: Int) async throws {
            try await until("\(records) records queued", on: [self.exporter, self.clock]) { await self.exporter.status.queuedRecords == records }
        }

        /// Moves the clock past the batch age and waits for what the backend then receives, and
        /// for the exporter to have its answer (the backend has the records first).
        func deliver(_ count: Int) async throws {
            clock.advance(by: .seconds(5))
            try await until("\(count) records accepted", on: [self.exporter, self.clock]) {
                let queued = await self.exporter.status.queuedRecords
                return self.sentBodies.count >= count && queued == 0
            }
        }

        /// Where a daemon starting now would resume.
        func cursorOnDisk() -> String? {
            (try? CursorStore(layout: StateLayout(root: state.path)).cursor(for: AppName("demo")))??.cursor
        }
    }

    func ready(_ host: Host, policy: Policy = Policy()) async throws {
        await host.exporter.consent(granted: true)
        await host.exporter.policyChanged(policy)
        try await host.exporter.start()
    }

    // MARK: - Held until the first policy, and filtered by it

    @Test func recordsAreHeldUntilTheFirstPolicyAndFilteredByIt() async throws {
        let host = try await Host()
        try await host.lines(["debug detail"], priority: 7)
        try await host.lines(["disk almost full"], priority: 4)
        try await host.lines(["request failed"], priority: 3)
        await host.exporter.consent(granted: true)
        try await host.exporter.start()
        try await host.waitQueued(3)
        host.clock.advance(by: .seconds(60))
        // Nothing leaves without a policy: the delivery sets no deadline to send at.
        #expect(host.clock.earliestDeadline == nil)
        #expect(host.sink.attempts == 0)

        // errors off, logs from WARN (13) up: only the warning goes.
        await host.exporter.policyChanged(Policy(capture: CapturePolicy(errors: .never, logsMinSeverity: 13)))
        // The held warning is due at once (it waited 60 s), so it may already be on its way.
        let status = await host.exporter.status
        #expect(status.queuedRecords + status.sentRecords == 1)
        #expect(status.filteredRecords == 2)
        try await host.deliver(1)
        #expect(host.sentBodies == ["disk almost full"])
        await host.stop()
        // The cursor moved past the filtered entries too: a restart sends nothing again.
        let lastCursor = try JournalFollower(
            source: .directory(host.journal.path), apps: [JournalApp(id: "x", unit: IngestFixture.unit, start: .oldest)])
        let all = try await drain(lastCursor)
        #expect(host.cursorOnDisk() == all.cursors["x"])
    }

    /// Reading, encoding and sending run on the one `apsio-ingest` thread an operator sees in
    /// `top -H`, not on threads of the shared pool.
    @Test func ingestRunsOnItsOwnNamedThread() async throws {
        let host = try await Host()
        try await ready(host)
        try await host.lines(["first", "second"])
        try await host.deliver(2)
        #expect(host.sink.threads == ["apsio-ingest"])
        await host.stop()
    }

    /// 16.6: a raised level releases DEBUG lines marked `released=live`, never a family that is off.
    @Test func aRaisedLogLevelReleasesDebugLinesButNoFamilyThatIsOff() async throws {
        let host = try await Host()
        try await ready(host, policy: Policy(capture: CapturePolicy(errors: .never)))
        await host.exporter.releaseDebug(untilUnixMs: host.clock.now().wallUnixMs + 30 * 60_000)
        try await host.lines(["cache miss for key 42"], priority: 7)
        try await host.lines(["worker crashed"], priority: 2)
        try await host.lines(["served /index"], priority: 6)
        try await host.waitQueued(2)
        try await host.deliver(2)
        let sent = host.sink.accepted.flatMap(SentRecord.all(in:))
        #expect(sent.map(\.body) == ["cache miss for key 42", "served /index"])
        #expect(sent[0].attributes["apsio.sampling.released"]?["stringValue"]?.stringValue == "live")
        #expect(sent[1].attributes["apsio.sampling.released"] == nil)
        #expect(sent[1].attributes["apsio.sampling.session.rate"]?["doubleValue"] == .number(1))
        await host.stop()
    }

    // MARK: - An outage

    /// 1.5: 503 without and with Retry-After, then no answer at all, then recovery: every record
    /// arrives once the backend is back, each retry waits the backoff (1 s, doubling) or the longer
    /// Retry-After, and nothing is attempted in between.
    @Test func anOutageBacksOffHonoursRetryAfterAndLosesNothing() async throws {
        let host = try await Host()
        host.sink.answer([
            .status(503, body: [], retryAfter: nil),
            .status(503, body: [], retryAfter: .seconds(120)),
            .failed, .failed, .failed,
        ])
        try await ready(host)
        try await host.lines((0..<50).map { "line \($0)" })
        try await host.waitQueued(50)

        @Sendable func attempted(_ count: Int, thenWaits wait: Duration) async throws {
            // The clock moves only when the test moves it: the deadline the wait must reach is fixed now.
            let due = host.clock.now().mono + wait
            try await host.clock.waitAsleep("attempt \(count), then a wait of \(wait)") { $0.first == due }
            #expect(host.sink.attempts == count)
        }
        host.clock.advance(by: .seconds(5))
        try await attempted(1, thenWaits: .seconds(1))
        host.clock.advance(by: .seconds(1))
        try await attempted(2, thenWaits: .seconds(120))  // Retry-After beats the backoff's 2 s
        host.clock.advance(by: .seconds(119))
        #expect(host.sink.attempts == 2)
        host.clock.advance(by: .seconds(1))
        try await attempted(3, thenWaits: .seconds(4))  // refused: the backoff goes on doubling
        host.clock.advance(by: .seconds(4))
        try await attempted(4, thenWaits: .seconds(8))
        host.clock.advance(by: .seconds(8))
        try await attempted(5, thenWaits: .seconds(16))
        #expect(await host.exporter.status.sentRecords == 0)
        #expect(await host.exporter.status.queuedRecords == 50)
        #expect(await host.exporter.status.lastFailure != nil)

        host.clock.advance(by: .seconds(16))
        // The backend has the records before the exporter has its answer: accepted is both.
        try await until("the batch accepted", on: [host.exporter, host.clock]) {
            let queued = await host.exporter.status.queuedRecords
            return host.sentBodies.count == 50 && queued == 0
        }
        #expect(host.sink.attempts == 6)
        #expect(host.sentBodies == (0..<50).map { "line \($0)" })
        #expect(await host.exporter.status.queuedRecords == 0)
        #expect(await host.exporter.status.lastFailure == nil)
        // Recovered: the next failure waits the backoff's first step again.
        host.sink.answer([.status(500, body: [], retryAfter: nil)])
        try await host.lines(["after"])
        try await host.waitQueued(1)
        host.clock.advance(by: .seconds(5))
        try await attempted(7, thenWaits: .seconds(1))
        await host.stop()
    }

    /// A receiver that reads OTLP JSON only answers a protobuf batch 415: the batch goes again at
    /// once as JSON, and so does every later one, with the switch said once in the log.
    @Test func aBackendThatRefusesProtobufGetsJSON() async throws {
        let host = try await Host(encoding: .protobuf)
        host.sink.refuse(.protobuf)
        try await ready(host)
        try await host.lines(["first"])
        try await host.deliver(1)
        try await host.lines(["second"])
        try await host.deliver(2)
        #expect(host.sentBodies == ["first", "second"])
        #expect(host.sink.encodings == [.protobuf, .json, .json])
        #expect(host.log.all.filter { $0.contains("415") }.count == 1)
        await host.stop()
    }

    /// `Compression=zstd` sends zstd bodies; a receiver that does not read zstd (400 here, the
    /// OpenTelemetry collector's answer) gets the batch again gzipped at once, and every later one,
    /// with the fallback said once and no failure recorded.
    @Test func aBackendThatRefusesZstdGetsGzip() async throws {
        let host = try await Host(compression: .zstd)
        host.sink.refuseZstd(with: 400)
        try await ready(host)
        try await host.lines(["first"])
        try await host.deliver(1)
        try await host.lines(["second"])
        try await host.deliver(2)
        #expect(host.sentBodies == ["first", "second"])
        #expect(host.sink.compressions == [.zstd, .gzip, .gzip])
        #expect(host.log.all.filter { $0.contains("does not take zstd bodies (400)") }.count == 1)
        #expect(await host.exporter.status.lastFailure == nil)
        #expect(await host.exporter.status.rejectedBatches == 0)
        await host.stop()
    }

    /// A receiver that reads zstd gets nothing else.
    @Test func aBackendThatReadsZstdGetsZstd() async throws {
        let host = try await Host(compression: .zstd)
        try await ready(host)
        try await host.lines(["first"])
        try await host.deliver(1)
        #expect(host.sentBodies == ["first"])
        #expect(host.sink.compressions == [.zstd])
        await host.stop()
    }

    /// A receiver that keeps part of an accepted batch (OTLP's partial success): the records it did
    /// not keep are counted apart, not sent again, and each new reason is logged once.
    @Test func aPartialSuccessIsCountedAndNotSentAgain() async throws {
        let host = try await Host()
        host.sink.acceptPartially([
            OTLPPartialSuccess(rejectedRecords: 2, message: "timestamp too old"),
            OTLPPartialSuccess(rejectedRecords: 1, message: "timestamp too old"),
            OTLPPartialSuccess(rejectedRecords: 1, message: nil),
        ])
        try await ready(host)
        for batch in 1...3 {
            try await host.lines(["batch \(batch) a", "batch \(batch) b"])
            try await host.deliver(2 * batch)
        }
        let status = await host.exporter.status
        #expect(status.rejectedRecords == 4)
        #expect(status.sentRecords == 6 && status.droppedRecords == 0 && status.queuedRecords == 0)
        #expect(host.sink.attempts == 3, "nothing sent again")
        let said = host.log.all.filter { $0.contains("did not keep") }
        #expect(said.count == 2)
        #expect(said.first?.contains("timestamp too old") == true)
        await host.stop()
    }

    /// 1.5: a 401 stops the app until restart and keeps its queue.
    @Test func anUnknownAppKeyStopsSendingAndKeepsTheQueue() async throws {
        let host = try await Host()
        host.sink.answer([.status(401, body: [], retryAfter: nil)])
        try await ready(host)
        try await host.lines(["one", "two"])
        try await host.waitQueued(2)
        host.clock.advance(by: .seconds(5))
        try await until("the 401", on: [host.exporter, host.clock]) { await host.exporter.status.stopped == .appKeyUnknown }
        host.clock.advance(by: .seconds(3600))
        #expect(host.clock.earliestDeadline == nil)
        #expect(host.sink.attempts == 1)
        #expect(await host.exporter.status.queuedRecords == 2)
        await host.stop()
        // The cursor is still where this newly served app started: nothing was accepted.
        #expect(host.cursorOnDisk() == CursorStore.fromHead)
    }

    // MARK: - Consent and the kill switch

    /// §13: consent withdrawn drops the queue (the journal window and the record queue), moves the
    /// cursor to the journal's end, and nothing more leaves; granted again, only what is written
    /// from then on goes.
    @Test func consentWithdrawnDropsTheQueueAndStopsSending() async throws {
        let host = try await Host()
        try await ready(host)
        try await host.lines(["before 1", "before 2"])
        try await host.deliver(2)

        try await host.lines(["queued when consent goes"])
        try await host.waitQueued(1)
        let diagnostics = LogRecord(timeUnixNano: 1, severity: JournalSeverity(priority: 6), body: "apsio.diagnostics")
        // The record carries the queue as it stood when it joined: the one line read, not itself.
        let windowBytes = await host.exporter.status.queuedBytes
        let queued = await host.exporter.submit(diagnostics, addingQueueLevel: true)
        #expect(queued.attributes["apsio.queue.records"] == .int(1))
        #expect(queued.attributes["apsio.queue.bytes"] == .int(Int64(windowBytes)))
        #expect(await host.exporter.status.queuedRecords == 2)
        await host.exporter.consent(granted: false)
        #expect(await host.exporter.status.queuedRecords == 0)
        await host.exporter.submit(diagnostics)
        #expect(await host.exporter.status.queuedRecords == 0, "nothing is queued while consent is withdrawn")
        try await host.lines(["written while denied"])
        host.clock.advance(by: .seconds(3600))
        #expect(host.clock.earliestDeadline == nil)
        #expect(host.sink.attempts == 1)
        #expect(await host.exporter.status.queuedRecords == 0)

        await host.exporter.consent(granted: true)
        try await host.lines(["after consent"])
        try await host.waitQueued(1)
        try await host.deliver(3)
        #expect(host.sentBodies == ["before 1", "before 2", "after consent"])
        await host.stop()
    }

    /// 12.3: the kill switch drops the queue and sends nothing until a policy without it.
    @Test func theKillSwitchDropsTheQueueUntilAPolicyWithoutIt() async throws {
        let host = try await Host()
        try await ready(host)
        try await host.lines(["queued"])
        try await host.waitQueued(1)
        await host.exporter.policyChanged(Policy(killSwitch: true))
        #expect(await host.exporter.status.queuedRecords == 0)
        try await host.lines(["during the kill switch"])
        host.clock.advance(by: .seconds(3600))
        #expect(host.sink.attempts == 0)
        #expect(host.clock.earliestDeadline == nil)

        await host.exporter.policyChanged(Policy())
        try await host.lines(["back"])
        try await host.waitQueued(1)
        try await host.deliver(1)
        #expect(host.sentBodies == ["back"])
        await host.stop()
    }

    // MARK: - Non-journal records

    @Test func submittedRecordsGoFromTheRecordQueueAndSurviveARestart() async throws {
        let host = try await Host()
        let record = LogRecord(
            timeUnixNano: 1_800_000_000_000_000_000, severity: JournalSeverity(priority: 6), body: "apsio.diagnostics",
            attributes: [.string("apsio.live.command.id", "c-1"), .string("note", "password=hunter2")])
        await host.exporter.consent(granted: true)
        await host.exporter.submit(record)
        #expect(await host.exporter.status.queuedRecords == 1)
        #expect(await host.exporter.status.queuedBytes > 0)
        await host.exporter.stop()

        // The next run sends it.
        let exporter = try host.nextRun()
        await exporter.consent(granted: true)
        await exporter.policyChanged(Policy())
        try await exporter.start()
        host.clock.advance(by: .seconds(5))
        try await until("the diagnostics record", on: [exporter, host.clock]) { host.sentBodies == ["apsio.diagnostics"] }
        let sent = try #require(host.sink.accepted.flatMap(SentRecord.all(in:)).first)
        #expect(sent.attributes["note"]?["stringValue"]?.stringValue == "password=[REDACTED:password]")
        #expect(sent.uid?.count == 32)
        try await until("the queue empty", on: [exporter, host.clock]) { await exporter.status.queuedRecords == 0 }
        await host.stop(exporter)
    }

    /// As the daemon starts an app: the policy kept on disk is known before the operator's consent.
    /// A record the run before queued is sent then, not dropped as if consent had been refused.
    @Test func aRecordQueuedByTheRunBeforeIsSentWhenThePolicyIsKnownBeforeConsent() async throws {
        let host = try await Host()
        await host.exporter.consent(granted: true)
        await host.exporter.submit(LogRecord(timeUnixNano: 1, severity: JournalSeverity(priority: 6), body: "queued before"))
        await host.exporter.stop()

        let exporter = try host.nextRun()
        await exporter.policyChanged(Policy())
        await exporter.consent(granted: true)
        try await exporter.start()
        host.clock.advance(by: .seconds(5))
        // Sent and accepted, or (as it was) dropped at once: either way nothing waits any more.
        try await until("nothing waiting", on: [exporter, host.clock]) { await exporter.status.queuedRecords == 0 }
        #expect(host.sentBodies == ["queued before"])
        #expect(await exporter.status.discardedRecords == 0)
        await host.stop(exporter)
    }
}
