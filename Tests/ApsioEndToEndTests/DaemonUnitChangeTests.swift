import ApsioAgent
import ApsioCore
import Foundation
@testable import ApsioTestSupport
import Testing
import ApsioState

/// An app file whose `Unit=` is edited: the same install now watches another service. The position
/// saved for the old unit means nothing for the new one, so `StartAt=` applies again for it, and
/// the install keeps its id and its queue. Shown on the built apsiod, across a restart and across
/// a reload, and for a cursor file written before the unit was recorded with the position.
@Suite(.serialized) struct DaemonUnitChangeTests {
    static let old = "foo.service"
    static let new = "bar.service"

    /// `apps.d/demo.conf` watching `unit`, reading from the oldest entry when first served.
    static func writeApp(_ h: AgentHarness, unit: String) throws {
        try h.root.write("etc/apps.d/\(AgentHarness.app).conf", """
            [App]
            Unit=\(unit)
            Name=com.example.demo
            Version=2.0.1
            Backend=\(h.backend.origin)
            AppKey=\(AgentHarness.appKey)
            Consent=granted
            StartAt=head
            """)
    }

    /// Both services have been logging side by side: the new unit's history lies before and around
    /// every entry of the old one's, so the old unit's saved position is past most of it.
    static func writeHistories(_ h: AgentHarness) async throws -> (old: [String], new: [String]) {
        var entries: [JournalFixture.Entry] = []
        var old: [String] = [], new: [String] = []
        for index in 0..<1200 {
            new.append("bar \(index)")
            entries.append(h.journal.entry(unit: Self.new, message: "bar \(index)"))
            if index % 30 == 29 {
                old.append("foo \(index / 30)")
                entries.append(h.journal.entry(unit: Self.old, message: "foo \(index / 30)"))
            }
        }
        try await h.journal.write(entries)
        return (old, new)
    }

    /// Serves the old unit until the backend accepted all of `bodies` and the daemon knows it.
    static func serveOld(_ h: AgentHarness, _ bodies: [String]) async throws {
        // Both services exist, as on a real box: the daemon finds each on the bus when it follows it.
        try await SystemdMock.addUnit(h.bus, Self.old)
        try await SystemdMock.addUnit(h.bus, Self.new)
        try writeApp(h, unit: Self.old)
        h.backend.setPolicy(try h.policy(live: false))
        try h.start()
        try await h.waitServing()
        try await poll("the old unit's entries accepted", seconds: 120, every: .milliseconds(100)) {
            let ingest = try? await h.ingestStatus()
            return ingest?["sent_records"]?.numberValue == Double(bodies.count) && ingest?["queued_records"]?.numberValue == 0
        }
        #expect(h.backend.records.map(\.body) == bodies)
    }

    /// After the edit: every entry of the new unit reaches the backend, in order, once; one written
    /// now follows them; nothing is counted lost; and `apsioctl status` counts what the sink got.
    static func expectTheNewUnitsWholeHistory(
        _ h: AgentHarness, history: [String], sentBefore: Int, alsoSent: [String] = []
    ) async throws {
        try await h.journal.write([h.journal.entry(unit: Self.new, message: "bar later")])
        try await poll("the new unit's entry written after the edit", seconds: 120, every: .milliseconds(100)) {
            h.backend.records.contains { $0.body == "bar later" }
        }
        // Read in journal order: once the last one is there, every one before it that was going
        // to be sent has been.
        let sent = Array(h.backend.records.dropFirst(sentBefore).map(\.body))
        #expect(sent.filter { $0.hasPrefix("bar ") } == history + ["bar later"], "the new unit's whole history, once, in order")
        #expect(Set(sent) == Set(history + ["bar later"] + alsoSent), "nothing else: \(Set(sent).symmetricDifference(history + ["bar later"] + alsoSent))")
        try await poll("every record accepted", seconds: 60, every: .milliseconds(100)) {
            let ingest = try? await h.ingestStatus()
            return ingest?["sent_records"]?.numberValue == Double(sent.count) && ingest?["queued_records"]?.numberValue == 0
        }
        let ingest = try #require(try await h.ingestStatus())
        #expect(ingest["dropped_records"]?.numberValue == 0, "nothing lost: \(ingest)")
        #expect((ingest["journal_gaps"]?.numberValue ?? 0) == 0, "no journal gap: \(ingest)")
        #expect(!h.log.contains("is gone"), "no entry reported gone: \(h.log)")
        let status = try await h.ctl(["status", AgentHarness.app])
        #expect(status.stdout.contains("\(sent.count) sent, 0 waiting (0 bytes), 0 lost"), "\(status.stdout)")
    }

    @Test func anAppFileWhoseUnitChangesSendsTheNewUnitsWholeHistory() async throws {
        try await AgentHarness.with { h in
            let (old, new) = try await Self.writeHistories(h)
            try await Self.serveOld(h, old)
            let install = try h.installationID()
            #expect(await h.stop() == 0)

            // A record queued for the old unit while it was served (a crash seen at start, the
            // diagnostics command's): it is the app's, and still goes.
            let queue = try RecordQueue(directory: h.appStateDirectory + "/queue")
            try queue.append(
                LogRecordCodec.encode(LogRecord(timeUnixNano: 1, severity: JournalSeverity(priority: 6), body: "queued while foo was served")),
                at: Int64(Date().timeIntervalSince1970 * 1000))
            queue.close()

            try Self.writeApp(h, unit: Self.new)
            try h.start()
            try await h.waitServing()
            try await Self.expectTheNewUnitsWholeHistory(
                h, history: new, sentBefore: old.count, alsoSent: ["queued while foo was served"])
            // The same install: its id, and so the records' uids' namespace, stays.
            #expect(try h.installationID() == install)
            #expect(h.backend.records.allSatisfy { $0.resource["app.installation.id"] == install })
            #expect(h.log.contains("Unit="), "the daemon says why it starts afresh: \(h.log)")
        }
    }

    @Test func anAppFileWhoseUnitChangesSendsTheNewUnitsWholeHistoryOnReload() async throws {
        try await AgentHarness.with { h in
            let (old, new) = try await Self.writeHistories(h)
            try await Self.serveOld(h, old)

            try Self.writeApp(h, unit: Self.new)
            let reload = try await h.ctl(["reload"])
            #expect(reload.status == 0, "\(reload.stderr)")
            try await poll("the new unit served", seconds: 60, every: .milliseconds(100)) {
                let run = try? await h.ctl(["--json", "apps"])
                return run?.stdout.contains("\"\(Self.new)\"") == true
            }
            try await Self.expectTheNewUnitsWholeHistory(h, history: new, sentBefore: old.count)
        }
    }

    /// A cursor file written before the position recorded its unit (a state directory from an
    /// earlier apsiod) is judged by the entry it names: that entry is the old unit's, so the
    /// position is not the new unit's, and `StartAt=` applies.
    @Test func aCursorFileWithoutItsUnitIsJudgedByTheEntryItNames() async throws {
        try await AgentHarness.with { h in
            let (old, new) = try await Self.writeHistories(h)
            try await Self.serveOld(h, old)
            #expect(await h.stop() == 0)

            // The position as an earlier apsiod wrote it: the cursor alone, on one line.
            let store = CursorStore(layout: StateLayout(root: h.state))
            let saved = try #require(try store.cursor(for: AppName(AgentHarness.app)))
            store.close()
            try (saved.cursor + "\n").write(toFile: h.appStateDirectory + "/cursor", atomically: false, encoding: .utf8)

            try Self.writeApp(h, unit: Self.new)
            try h.start()
            try await h.waitServing()
            try await Self.expectTheNewUnitsWholeHistory(h, history: new, sentBefore: old.count)
        }
    }
}
