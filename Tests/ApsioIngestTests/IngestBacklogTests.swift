import ApsioCore
@testable import ApsioIngest
import ApsioState
import ApsioTestSupport
import Testing

/// What waits for the backend, and how a batch is made of it: the record queue's records first,
/// the window's after, within the batch's bounds; an answered batch moves past exactly what it took.
@Suite struct IngestBacklogTests {
    private final class Fixture {
        let directory: TemporaryDirectory
        var backlog: IngestBacklog

        init() throws {
            directory = try TemporaryDirectory("apsio-backlog")
            backlog = IngestBacklog(queue: try RecordQueue(directory: directory.path + "/queue"), now: .origin)
        }

        func submit(_ body: String, at unixMs: Int64 = 1_800_000_000_000) throws {
            let record = LogRecord(timeUnixNano: 1, severity: JournalSeverity(priority: 6), body: body)
            try backlog.submit(LogRecordCodec.encode(record), at: LiveNow(mono: MonotonicInstant(.seconds(5)), wallUnixMs: unixMs))
        }

        func read(_ bodies: [String], held: Bool = false, bytes: Int = 100) {
            backlog.window.append(IngestWindowTests.chunk(bodies, held: held, bytes: bytes))
        }

        func next(_ limit: IngestBatchLimit, admit: (LogRecord) -> SamplingMark? = { _ in .unsampled })
            -> (batch: IngestBacklog.Batch, filtered: Int, unreadable: [LogRecordCodecError], queueError: RecordQueueError?)
        {
            backlog.nextBatch(within: limit, now: 1_800_000_000_000, admit: admit)
        }
    }

    private static func bodies(_ batch: IngestBacklog.Batch) -> [String] { IngestWindowTests.bodies(batch.runs) }

    @Test func theRecordQueueGoesFirstAndTheWindowFillsTheRest() throws {
        let f = try Fixture()
        try f.submit("diagnostics")
        f.read(["a", "b", "c"])
        #expect(f.backlog.level.records == 4)
        let next = f.next(IngestBatchLimit(maxRecords: 3, maxBytes: 1_000_000))
        #expect(Self.bodies(next.batch) == ["diagnostics", "a", "b"])
        #expect(next.batch.queueEntries == 1 && next.batch.windowRecords == 2 && next.batch.records == 3)
        #expect(next.queueError == nil && next.unreadable.isEmpty)

        // Answered: the queue's entry and the window's two leave; the cursor after "b" is saved.
        #expect(f.backlog.remove(next.batch).cursor == "after-b")
        #expect(f.backlog.level.records == 1)
        #expect(Self.bodies(f.next(IngestBatchLimit(maxRecords: 10, maxBytes: 1_000_000)).batch) == ["c"])
    }

    /// The bytes bound counts the queue's records by their estimate; the window gives what is left,
    /// and at least one record when the queue gave none, whatever its size.
    @Test func theBytesBoundIsSharedAndOneLargeRecordStillGoes() throws {
        let f = try Fixture()
        f.read(["big", "next"], bytes: 5_000)
        let alone = f.next(IngestBatchLimit(maxRecords: 100, maxBytes: 1_000))
        #expect(Self.bodies(alone.batch) == ["big"])

        try f.submit("diagnostics")
        let shared = f.next(IngestBatchLimit(maxRecords: 100, maxBytes: 1_000))
        #expect(Self.bodies(shared.batch) == ["diagnostics"], "the window's record does not fit beside the queue's")
    }

    /// A queued record the policy keeps out is not sent, yet the answer moves past it.
    @Test func aQueuedRecordThePolicyKeepsOutIsMovedPast() throws {
        let f = try Fixture()
        try f.submit("kept out")
        try f.submit("sent")
        let next = f.next(IngestBatchLimit(maxRecords: 10, maxBytes: 1_000_000)) { $0.body == "kept out" ? nil : .unsampled }
        #expect(Self.bodies(next.batch) == ["sent"])
        #expect(next.filtered == 1 && next.batch.queueEntries == 2 && next.batch.records == 1)
        _ = f.backlog.remove(next.batch)
        #expect(f.backlog.level.records == 0)
    }

    /// A queued entry this apsiod cannot read is reported, not sent, and moved past.
    @Test func anUnreadableQueuedRecordIsReportedAndMovedPast() throws {
        let f = try Fixture()
        try f.backlog.submit([0xff, 0x00, 0x01], at: LiveNow(mono: .origin, wallUnixMs: 1_800_000_000_000))
        try f.submit("readable")
        let next = f.next(IngestBatchLimit(maxRecords: 10, maxBytes: 1_000_000))
        #expect(next.unreadable.count == 1)
        #expect(Self.bodies(next.batch) == ["readable"])
        _ = f.backlog.remove(next.batch)
        #expect(f.backlog.level.records == 0)
    }

    /// Before the first policy nothing of the window goes: held records stop its part.
    @Test func recordsHeldBeforeTheFirstPolicyAreNotInABatch() throws {
        let f = try Fixture()
        f.read(["held"], held: true)
        #expect(f.next(IngestBatchLimit(maxRecords: 10, maxBytes: 1_000_000)).batch.records == 0)
    }

    @Test func droppingEmptiesBothAndCountsEveryRecord() throws {
        let f = try Fixture()
        try f.submit("diagnostics")
        f.read(["a", "b"])
        #expect(f.backlog.dropAll().records == 3)
        #expect(f.backlog.level == IngestQueueLevel(records: 0, bytes: 0, oldestAt: nil))
    }

    /// The level's age is the older of the window's oldest record and the record queue's.
    @Test func theLevelIsBothSidesAndTheOldestOfThem() throws {
        let f = try Fixture()
        f.read(["a"])
        try f.submit("diagnostics")
        let level = f.backlog.level
        #expect(level.records == 2)
        #expect(level.bytes > 100)
        #expect(level.oldestAt == .origin)
    }
}
