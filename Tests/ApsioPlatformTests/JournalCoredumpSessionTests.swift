import ApsioCore
import ApsioPlatform
import Foundation
@testable import ApsioTestSupport
import Testing

/// systemd-coredump writes its report of a crash from its own unit, so the report's own
/// `_SYSTEMD_INVOCATION_ID` is not the crashed unit's: the crash record takes the session the
/// crashed process last wrote in, as the reader saw it (docs/decisions.md, "A crash's session").
@Suite struct JournalCoredumpSessionTests {
    static let invocationA = "a1a1a1a1b2b2c3c3d4d4e5e5e5e5e5e5"
    static let invocationB = "b7b7b7b7c8c8d9d9e0e0f1f1f1f1f1f1"
    static let nginx = JournalApp(id: "nginx", unit: "nginx.service", start: .oldest)

    /// The unit's lines from invocation A by pid 4242, a restart (invocation B, pid 5151) before
    /// the report arrives, then the report of 4242's crash: the crash is A's. A crash of a process
    /// the reader never saw write has no session rather than a guessed one. The same when
    /// `MinPriority=` leaves every line out: the lines are read all the same.
    @Test(arguments: [7, 3])
    func coredumpRecordCarriesTheSessionOfTheCrashedProcess(minPriority: Int) async throws {
        let journal = try JournalFixture()
        try await journal.write([
            journal.entry(unit: "nginx.service", message: "A starting", invocationID: Self.invocationA),
            journal.entry(unit: "nginx.service", message: "A about to crash", invocationID: Self.invocationA),
            journal.entry(unit: "nginx.service", message: "B starting", invocationID: Self.invocationB)
                .replacing("_PID", with: .text("5151")),
            journal.coredump(unit: "nginx.service", pid: 4242),
            journal.coredump(unit: "nginx.service", pid: 777),
        ])
        var app = Self.nginx
        app.minPriority = minPriority
        let follower = try JournalFollower(source: .directory(journal.path), apps: [app])
        let records = try await drain(follower).records.map(\.record)
        let crashes = records.filter { $0.family == .errors }
        #expect(crashes.count == 2)
        #expect(crashes.first?.attributes["process.pid"] == .int(4242))
        #expect(crashes.first?.sessionID == SessionID.fromInvocationID(Self.invocationA))
        #expect(crashes.first?.sessionID == "a1a1a1a1-b2b2-c3c3-d4d4-e5e5e5e5e5e5")
        #expect(crashes.last?.attributes["process.pid"] == .int(777))
        #expect(crashes.last?.sessionID == nil)
        if minPriority == 7 {
            #expect(records.first { $0.body == "B starting" }?.sessionID == SessionID.fromInvocationID(Self.invocationB))
        }
    }

    /// The reader remembers the process's session across a turn to another app and back, and
    /// across fresh openings, as it remembers session ids.
    @Test func theCrashedProcessIsRememberedAcrossTurnsAndOpenings() async throws {
        let journal = try JournalFixture()
        try await journal.write([
            journal.entry(unit: "nginx.service", message: "A line", invocationID: Self.invocationA),
            journal.entry(unit: "worker.service", message: "worker line").replacing("_PID", with: .text("6000")),
        ])
        var limits = JournalReadLimits.standard
        limits.entriesPerOpening = 1
        let follower = try JournalFollower(source: .directory(journal.path), apps: [Self.nginx], limits: limits)
        let first = try await drain(follower)
        #expect(first.records.map(\.record.body) == ["A line"])

        #expect(try await follower.retarget(to: [JournalApp(id: "worker", unit: "worker.service", start: .oldest)]).isEmpty)
        #expect(try await drain(follower).records.map(\.record.body) == ["worker line"])

        try await journal.write([journal.coredump(unit: "nginx.service", pid: 4242)])
        var nginx = Self.nginx
        nginx.start = .after(cursor: try #require(first.cursors["nginx"]))
        #expect(try await follower.retarget(to: [nginx]).isEmpty)
        let crash = try #require(try await drain(follower).records.first?.record)
        #expect(crash.family == .errors)
        #expect(crash.sessionID == SessionID.fromInvocationID(Self.invocationA))
    }
}
