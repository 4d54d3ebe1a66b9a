import ApsioCore
import ApsioPlatform
@testable import ApsioTestSupport
import Testing

/// `Match=` and `Exclude=` on real journal files: journalctl's rule (one field's values ORed,
/// different fields ANDed), excludes last, per app although one reader serves them all.
@Suite struct JournalEntrySelectionTests {
    static func match(_ field: String, _ value: String) -> JournalFieldMatch { JournalFieldMatch(field: field, value: value) }

    @Test func eachAppGetsTheLinesItsMatchesChooseAndTheCursorMovesPastTheOthers() async throws {
        let journal = try JournalFixture()
        // The fixture's lines say SYSLOG_IDENTIFIER=demo and _COMM=demo; COMPONENT and ROUTE are the app's own.
        func line(_ message: String, identifier: String, priority: Int = 6, own: [(String, JournalFixture.Value)] = []) -> JournalFixture.Entry {
            journal.entry(unit: "web.service", message: message, priority: priority, extra: [("COMPONENT", .text(identifier))] + own)
        }
        try await journal.write([
            line("gunicorn starts", identifier: "gunicorn"),
            line("nginx access", identifier: "nginx"),
            line("gunicorn debug", identifier: "gunicorn", priority: 7),
            line("worker tick", identifier: "worker"),
            line("gunicorn health check", identifier: "gunicorn", own: [("ROUTE", .text("/healthz"))]),
            line("gunicorn request", identifier: "gunicorn", own: [("ROUTE", .text("/api"))]),
        ])
        let chosen = JournalApp(
            id: "chosen", unit: "web.service",
            selection: JournalEntrySelection(
                matches: [Self.match("COMPONENT", "gunicorn"), Self.match("COMPONENT", "worker")],
                excludes: [Self.match("PRIORITY", "7"), Self.match("ROUTE", "/healthz")]),
            start: .oldest)
        let anded = JournalApp(
            id: "anded", unit: "web.service",
            selection: JournalEntrySelection(
                matches: [Self.match("SYSLOG_IDENTIFIER", "demo"), Self.match("_COMM", "demo"), Self.match("ROUTE", "/api")],
                excludes: []),
            start: .oldest)
        let all = JournalApp(id: "all", unit: "web.service", start: .oldest)
        let follower = try JournalFollower(source: .directory(journal.path), apps: [chosen, anded, all])
        let (records, cursors) = try await collect(6 + 3 + 1, from: follower)
        #expect(records.bodies(of: "chosen") == ["gunicorn starts", "worker tick", "gunicorn request"])
        #expect(records.bodies(of: "anded") == ["gunicorn request"])
        #expect(records.bodies(of: "all").count == 6)
        // Every app's cursor stands on the last line it read past, chosen or not.
        #expect(cursors["chosen"] == cursors["all"])
        #expect(cursors["anded"] == cursors["all"])
        #expect(try await drain(follower).records.isEmpty)
    }

    @Test func crashReportsComeWhateverTheMatchesSay() async throws {
        let journal = try JournalFixture()
        try await journal.write([
            journal.entry(unit: "web.service", message: "not chosen"),
            journal.coredump(unit: "web.service"),
        ])
        let app = JournalApp(
            id: "web", unit: "web.service",
            selection: JournalEntrySelection(matches: [Self.match("SYSLOG_IDENTIFIER", "gunicorn")], excludes: []),
            start: .oldest)
        let follower = try JournalFollower(source: .directory(journal.path), apps: [app])
        let (records, _) = try await collect(1, from: follower)
        #expect(records.count == 1)
        #expect(records[0].record.attributes.contains { $0.key.hasPrefix("process.") || $0.key.hasPrefix("exception") })
        #expect(try await drain(follower).records.isEmpty)
    }
}
