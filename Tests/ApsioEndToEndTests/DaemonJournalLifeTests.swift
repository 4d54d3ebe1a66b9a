import ApsioAgent
import ApsioCore
import ApsioNet
import Foundation
@testable import ApsioTestSupport
import Testing
import ApsioState
import ApsioLive
import ApsioWire

/// The journal's own life under the built `apsiod`, with real journal files: files rotate, get
/// vacuumed and get torn, units restart, clocks jump and machines reboot. What the journald shippers'
/// bug trackers are full of, each shown not to lose, repeat or stall.
@Suite(.serialized) struct DaemonJournalLifeTests {
    static let unit = AgentHarness.unit

    /// The bodies the sink received, in order, duplicates included.
    static func bodies(_ h: AgentHarness) -> [String] { h.backend.records.map(\.body) }

    static func lines(_ prefix: String, _ range: Range<Int>) -> [String] { range.map { "\(prefix) \($0)" } }

    /// Waits until the sink has every one of `expected`.
    static func waitFor(_ expected: [String], at h: AgentHarness, seconds: Double = 120) async throws {
        let wanted = Set(expected)
        try await poll("\(expected.count) lines at the sink", seconds: seconds, every: .milliseconds(100)) { wanted.isSubset(of: Set(bodies(h))) }
    }

    /// Waits until the daemon took in the answer that accepted the entry `body`: its saved cursor
    /// is that entry's (the one its uid is made of). The sink having a batch is not the daemon
    /// knowing it was accepted, and a stop before it knows sends the batch again.
    static func waitSaved(_ body: String, at h: AgentHarness) async throws {
        let uid = try #require(h.backend.records.last { $0.body == body }?.uid)
        let encoder = OTLPLogsEncoder(hashing: OpenSSLSHA256())
        let install = try h.installationID()
        try await poll("the position of \(body) saved", seconds: 60, every: .milliseconds(100)) {
            guard let cursor = try? CursorStore(layout: StateLayout(root: h.state)).cursor(for: AppName(AgentHarness.app))?.cursor
            else { return false }
            let saved = LogRecord(timeUnixNano: 0, severityNumber: 9, severityText: "INFO", family: .logs, body: "", journalCursor: cursor)
            return encoder.recordUID(saved, namespace: install) == uid
        }
    }

    /// A file is closed and a new one starts while entries are being read and sent: no entry is
    /// lost or sent twice.
    @Test func rotationWhileIngestingLosesAndRepeatsNothing() async throws {
        try await AgentHarness.with { h in
            try await h.serve(try h.policy(live: false), appFile: "StartAt=head")
            let filler = String(repeating: "x", count: 1500)
            // Bodies of 1.5 KB: the read-ahead window holds a few hundred, so the reader is behind,
            // in the middle of the file, when it is rotated.
            try await h.journal.write(Self.lines("first", 0..<1500).map { h.journal.entry(unit: Self.unit, message: $0 + " " + filler) })
            try h.journal.rotate()
            try await h.journal.write(Self.lines("second", 0..<1500).map { h.journal.entry(unit: Self.unit, message: $0 + " " + filler) })
            let expected = (Self.lines("first", 0..<1500) + Self.lines("second", 0..<1500)).map { $0 + " " + filler }
            try await Self.waitFor(expected, at: h)
            #expect(Self.bodies(h) == expected, "every entry once, in journal order")
            // The new file, caught before its first arena, is no truncated file (JournalFileCheck).
            #expect(!h.log.contains("cannot be read"), "\(h.log)")
        }
    }

    /// The entry the saved cursor names is vacuumed while apsiod is behind and stopped: it resumes
    /// at the oldest entry still there, never at the journal's end, counts the gap as a gap whose
    /// size is not known (not as a number of records it is not) and says so once, sends a record
    /// before the first entry after the gap that says what was lost, and goes on.
    @Test func vacuumUnderTheCursorResumesAtTheOldestEntryStillThere() async throws {
        try await AgentHarness.with { h in
            try await h.serve(try h.policy(live: false), appFile: "StartAt=head")
            try await h.journal.write(Self.lines("accepted", 0..<50).map { h.journal.entry(unit: Self.unit, message: $0) })
            // The fixture's clock: the time of the last entry written, "accepted 49".
            let lastSent = h.journal.realtime
            try await Self.waitFor(Self.lines("accepted", 0..<50), at: h)

            // The backend goes away: apsiod falls behind, then stops.
            h.backend.answerLogs(Array(repeating: 503, count: 1000))
            try await h.journal.write(Self.lines("behind", 0..<50).map { h.journal.entry(unit: Self.unit, message: $0) })
            try await poll("a batch of them refused", seconds: 60, every: .milliseconds(100)) { h.backend.records.contains { $0.body == "behind 0" } }
            #expect(await h.stop() == 0)

            // journald rotates, and the file the cursor is in is vacuumed.
            try h.journal.rotate()
            let afterEntries = Self.lines("after", 0..<50).map { h.journal.entry(unit: Self.unit, message: $0) }
            let firstThere = try #require(afterEntries.first).realtime
            try await h.journal.write(afterEntries)
            try await h.journal.vacuum(keeping: 1)
            h.backend.clearLogsScript()

            try h.start()
            try await Self.waitFor(Self.lines("after", 0..<50), at: h)
            try await h.journal.write([h.journal.entry(unit: Self.unit, message: "later")])
            try await Self.waitFor(["later"], at: h)
            let told = h.backend.records.filter { $0.attributes["apsio.journal.dropped.cause"]?["stringValue"]?.stringValue == "journal_gap" }
            #expect(told.count == 1, "one record tells the gap: \(told.map(\.body))")
            let gapBody = told.first?.body ?? "the gap's record"
            #expect(
                Self.bodies(h).filter { !$0.hasPrefix("behind") }
                    == Self.lines("accepted", 0..<50) + [gapBody] + Self.lines("after", 0..<50) + ["later"],
                "the record goes before the first entry after the gap")
            if let record = told.first {
                let int = { (key: String) in record.attributes[key]?["intValue"]?.stringValue.flatMap(UInt64.init) }
                // No count: the fixture's files are each written by a systemd-journal-remote of its
                // own, each a new sequence, where journald's rotation goes on with the old one
                // (JournalGapRecordTests has the count from cursors of one sequence).
                #expect(record.attributes["apsio.journal.dropped.count"] == nil, "\(record.attributes)")
                #expect(int("apsio.journal.dropped.start_time_unix_nano") == lastSent * 1000, "\(record.attributes)")
                #expect(int("apsio.journal.dropped.end_time_unix_nano") == firstThere * 1000, "\(record.attributes)")
                #expect(record.severityNumber == 13, "WARN")
                #expect(record.body.contains("how many is not known"), "\(record.body)")
            }
            let ingest = try #require(try await h.ingestStatus())
            #expect(ingest["journal_gaps"]?.numberValue == 1, "the gap is counted: \(ingest)")
            #expect(ingest["dropped_records"]?.numberValue == 0, "as no number of records: \(ingest)")
            let status = try await h.ctl(["status", AgentHarness.app])
            #expect(status.stdout.contains("Lost to the journal: an unknown number of entries in 1 gap"), "\(status.stdout)")
            let gapLines = h.log.split(separator: "\n").filter { $0.contains("is gone") }
            #expect(gapLines.count == 1, "one line about the gap: \(gapLines)")
        }
    }

    /// A truncated journal file and one that is not a journal at all: each skipped with one warning,
    /// the other files read, and the reading goes on.
    @Test func aCorruptOrTruncatedFileIsSkippedWithOneWarning() async throws {
        try await AgentHarness.with { h in
            try await h.journal.write(Self.lines("good", 0..<20).map { h.journal.entry(unit: Self.unit, message: $0) })
            try await h.journal.write(Self.lines("torn", 0..<200).map { h.journal.entry(unit: Self.unit, message: $0) }, to: "torn.journal")
            let torn = h.journal.path + "/torn.journal"
            let bytes = try Data(contentsOf: URL(fileURLWithPath: torn))
            let used = bytes.lastIndex { $0 != 0 } ?? bytes.count
            try bytes.prefix(used / 2).write(to: URL(fileURLWithPath: torn))
            try Data("LPKSHHRH".utf8 + [UInt8](repeating: 0xFF, count: 4096)).write(to: URL(fileURLWithPath: h.journal.path + "/garbage.journal"))

            try await h.serve(try h.policy(live: false), appFile: "StartAt=head")
            try await Self.waitFor(Self.lines("good", 0..<20), at: h)
            try await h.journal.write([h.journal.entry(unit: Self.unit, message: "good later")])
            try await Self.waitFor(["good later"], at: h)
            // A reload restarts nothing that changed, and says nothing again.
            #expect(try await h.ctl(["reload"]).status == 0)
            try await h.journal.write([h.journal.entry(unit: Self.unit, message: "good last")])
            try await Self.waitFor(["good last"], at: h)

            let warnings = h.log.split(separator: "\n").filter { $0.contains("cannot be read") }
            #expect(warnings.filter { $0.contains("torn.journal") && $0.contains("truncated") }.count == 1, "\(warnings)")
            #expect(warnings.filter { $0.contains("garbage.journal") }.count == 1, "\(warnings)")
            #expect(warnings.count == 2)
            #expect(h.daemon?.isRunning == true)
        }
    }

    /// A unit restarted a hundred times, each run its own `_SYSTEMD_INVOCATION_ID`: each record
    /// carries the session of the invocation that wrote it.
    @Test func aHundredInvocationsEachKeepTheirOwnSession() async throws {
        try await AgentHarness.with { h in
            let invocations = (0..<100).map { String(format: "%032x", 0x5e55_0000 + $0) }
            var entries: [JournalFixture.Entry] = []
            for (run, invocation) in invocations.enumerated() {
                for line in 0..<3 {
                    entries.append(h.journal.entry(unit: Self.unit, message: "run \(run) line \(line)", invocationID: invocation))
                }
            }
            try await h.journal.write(entries)
            try await h.serve(try h.policy(live: false), appFile: "StartAt=head")
            let expected = (0..<100).flatMap { run in (0..<3).map { "run \(run) line \($0)" } }
            try await Self.waitFor(expected, at: h)
            for record in h.backend.records {
                let run = try #require(record.body.split(separator: " ").dropFirst().first.flatMap { Int($0) })
                let session = record.attributes["session.id"]?["stringValue"]?.stringValue ?? record.resource["session.id"]
                #expect(session == SessionID.fromInvocationID(invocations[run]), "\(record.body)")
            }
            #expect(h.backend.records.count == expected.count)
        }
    }

    /// The wall clock set back an hour in the journal's timestamps (an operator's `date -s`, a bad
    /// NTP step): records keep the journal's order, and nothing is lost or repeated. (The daemon's
    /// own clock jumping is `LiveIntegrationTests`': its live channel runs on the monotonic clock.)
    @Test func theWallClockSetBackAnHourLosesAndRepeatsNothing() async throws {
        try await AgentHarness.with { h in
            try await h.serve(try h.policy(live: false), appFile: "StartAt=head")
            try await h.journal.write(Self.lines("before", 0..<30).map { h.journal.entry(unit: Self.unit, message: $0) })
            h.journal.setClock(by: .seconds(-3600))
            try await h.journal.write(Self.lines("after", 0..<30).map { h.journal.entry(unit: Self.unit, message: $0) })
            let expected = Self.lines("before", 0..<30) + Self.lines("after", 0..<30)
            try await Self.waitFor(expected, at: h)
            #expect(Self.bodies(h) == expected, "journal order, each once")

            // And across a restart: the saved cursor, whose time is an hour ahead of what follows,
            // is still where the reading resumes.
            try await Self.waitSaved("after 29", at: h)
            #expect(await h.stop() == 0)
            try await h.journal.write(Self.lines("later", 0..<30).map { h.journal.entry(unit: Self.unit, message: $0) })
            try h.start()
            try await Self.waitFor(Self.lines("later", 0..<30), at: h)
            #expect(Self.bodies(h) == expected + Self.lines("later", 0..<30))
        }
    }

    /// A cursor saved under a previous boot: after the reboot, ingest resumes right after it, with
    /// nothing lost and nothing sent again.
    @Test func aCursorSavedUnderAnotherBootResumesRightAfterIt() async throws {
        try await AgentHarness.with { h in
            h.journal.boot("b00710000000000000000000000000aa")
            try await h.serve(try h.policy(live: false), appFile: "StartAt=head")
            try await h.journal.write(Self.lines("first boot", 0..<40).map { h.journal.entry(unit: Self.unit, message: $0) })
            try await Self.waitFor(Self.lines("first boot", 0..<40), at: h)
            try await Self.waitSaved("first boot 39", at: h)
            #expect(await h.stop() == 0)

            h.journal.boot("b00720000000000000000000000000bb")
            try await h.journal.write(Self.lines("second boot", 0..<40).map { h.journal.entry(unit: Self.unit, message: $0) })
            try h.start()
            try await Self.waitFor(Self.lines("second boot", 0..<40), at: h)
            #expect(Self.bodies(h) == Self.lines("first boot", 0..<40) + Self.lines("second boot", 0..<40))
        }
    }
}
