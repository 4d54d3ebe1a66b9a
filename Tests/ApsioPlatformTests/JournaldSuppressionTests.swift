import ApsioCore
import ApsioPlatform
@testable import ApsioTestSupport
import Testing

/// journald's note that its rate limit dropped a unit's lines, read from real journal files as
/// journald writes it, becomes one WARN record in that unit's app's stream and in no other.
@Suite struct JournaldSuppressionTests {
    static let nginx = JournalApp(id: "nginx", unit: "nginx.service", start: .oldest)
    static let worker = JournalApp(id: "worker", unit: "worker.service", start: .oldest)

    @Test func theNoteForTheUnitBecomesAWarnRecordWithTheCountAndTheRange() async throws {
        let journal = try JournalFixture()
        let first = journal.entry(unit: "nginx.service", message: "a", priority: 6)
        let error = journal.entry(unit: "nginx.service", message: "b", priority: 3)
        let last = journal.entry(unit: "nginx.service", message: "c", priority: 6)
        let note = journal.suppression(unit: "nginx.service", dropped: "1234")
        try await journal.write([
            first, error, last, note,
            journal.entry(unit: "nginx.service", message: "d"),
            journal.entry(unit: "worker.service", message: "w"),
            journal.suppression(unit: "worker.service", dropped: "7"),
        ])
        let follower = try JournalFollower(source: .directory(journal.path), apps: [Self.nginx, Self.worker])
        let (records, cursors) = try await collect(7, from: follower)
        #expect(records.filter { $0.appID == "nginx" }.count == 5)
        let drop = try #require(records.first { $0.appID == "nginx" && $0.record.body.hasPrefix("journald") }?.record)
        #expect(records.bodies(of: "nginx")[3] == drop.body)
        #expect(drop.body.contains("1234 lines of nginx.service"))
        #expect(drop.severityNumber == 13)
        #expect(drop.severityText == "WARN")
        #expect(JournalDropRecord.droppedCount(of: drop) == 1234)
        #expect(drop.attributes[JournalDropRecord.causeKey] == .string("rate_limit"))
        // The earliest of the unit's latest line at each priority: info's was "c", err's "b".
        #expect(drop.attributes[JournalDropRecord.startKey] == .int(Int64(error.realtime) * 1000))
        #expect(drop.attributes[JournalDropRecord.endKey] == .int(Int64(note.realtime) * 1000))
        #expect(drop.timeUnixNano == note.realtime * 1000)
        #expect(drop.attributes["systemd.unit"] == .string("nginx.service"))
        #expect(drop.journalCursor != nil)
        // Nothing of journald's process or of the object process's command line.
        let text = drop.attributes.map { "\($0.key)=\($0.value)" }.joined(separator: "\n")
        #expect(!text.contains("hunter2"))
        #expect(!text.contains("OBJECT_"))
        #expect(!text.contains("process.pid"))

        // The worker's note is the worker's alone.
        let workerRecords = records.filter { $0.appID == "worker" }.map(\.record)
        #expect(workerRecords.count == 2)
        #expect(workerRecords.compactMap(JournalDropRecord.droppedCount(of:)) == [7])
        // The worker saw no line of its unit before "w": its note's range starts there.
        #expect(workerRecords[1].attributes[JournalDropRecord.startKey] == .int(Int64(workerRecords[0].timeUnixNano)))
        #expect(cursors["worker"] == workerRecords[1].journalCursor)
        #expect(try await drain(follower).records.isEmpty)
    }

    @Test func anotherUnitsNoteAndAForgedOneAreNotTheApps() async throws {
        let journal = try JournalFixture()
        try await journal.write([
            journal.suppression(unit: "cron.service", dropped: "50"),
            // Any writer can put these fields in its own entry; only journald's transport is `driver`.
            journal.suppression(unit: "nginx.service", dropped: "50", transport: "journal", writer: "mallory.service"),
            journal.entry(unit: "nginx.service", message: "after"),
        ])
        let follower = try JournalFollower(source: .directory(journal.path), apps: [Self.nginx])
        let (records, _) = try await collect(1, from: follower)
        #expect(records.bodies(of: "nginx") == ["after"])
        #expect(try await drain(follower).records.isEmpty)
    }

    @Test func aNoteWhoseCountCannotBeReadIsPassedOver() async throws {
        let journal = try JournalFixture()
        let damaged: [String?] = [nil, "", "12x", "-3", "0", "99999999999999999999", " 5"]
        try await journal.write(
            damaged.map { journal.suppression(unit: "nginx.service", dropped: $0) }
                + [journal.entry(unit: "nginx.service", message: "after")])
        let follower = try JournalFollower(source: .directory(journal.path), apps: [Self.nginx])
        let (records, _) = try await collect(1, from: follower)
        #expect(records.bodies(of: "nginx") == ["after"])
        #expect(try await drain(follower).records.isEmpty)
    }

    @Test func theNoteReachesAnAppWhateverItsMinPriorityAndWithoutAStartWhenNoLineWasSeen() async throws {
        let journal = try JournalFixture()
        try await journal.write([
            journal.suppression(unit: "nginx.service", dropped: "3"),
            journal.entry(unit: "nginx.service", message: "debug", priority: 7),
            journal.entry(unit: "nginx.service", message: "error", priority: 3),
        ])
        let app = JournalApp(id: "nginx", unit: "nginx.service", minPriority: 3, start: .oldest)
        let follower = try JournalFollower(source: .directory(journal.path), apps: [app])
        let (records, _) = try await collect(2, from: follower)
        #expect(records.count == 2)
        let drop = records[0].record
        #expect(JournalDropRecord.droppedCount(of: drop) == 3)
        #expect(drop.attributes[JournalDropRecord.startKey] == nil)
        #expect(drop.attributes[JournalDropRecord.endKey] == .int(Int64(drop.timeUnixNano)))
        #expect(records[1].record.body == "error")
    }

    /// `N_DROPPED` and `OBJECT_SYSTEMD_UNIT` in the app's own line are the app's fields, forwarded
    /// as before they were read by name; such a line is no note.
    @Test func theAppsOwnFieldsOfTheseNamesAreStillForwarded() async throws {
        let journal = try JournalFixture()
        try await journal.write([
            journal.entry(
                unit: "nginx.service", message: "mine",
                extra: [("N_DROPPED", .text("5")), ("OBJECT_SYSTEMD_UNIT", .text("x.service"))])
        ])
        let follower = try JournalFollower(source: .directory(journal.path), apps: [Self.nginx])
        let (records, _) = try await collect(1, from: follower)
        let record = try #require(records.first?.record)
        #expect(record.attributes["N_DROPPED"] == .string("5"))
        #expect(record.attributes["OBJECT_SYSTEMD_UNIT"] == .string("x.service"))
        #expect(JournalDropRecord.droppedCount(of: record) == nil)
    }
}
