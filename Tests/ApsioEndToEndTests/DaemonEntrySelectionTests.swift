import ApsioCore
import Foundation
@testable import ApsioTestSupport
import Testing

/// `Match=` and `Exclude=` on the built `apsiod`: only the unit's lines they choose reach the
/// backend, and an edited choice applies from the reload on, to the lines written after it.
@Suite(.serialized) struct DaemonEntrySelectionTests {
    static func line(_ h: AgentHarness, _ message: String, component: String, route: String = "/") -> JournalFixture.Entry {
        h.journal.entry(unit: AgentHarness.unit, message: message, extra: [("COMPONENT", .text(component)), ("ROUTE", .text(route))])
    }

    @Test func onlyTheChosenLinesAreSentAndAReloadChoosesAgain() async throws {
        try await AgentHarness.with { h in
            try await h.serve(try h.policy(live: false), appFile: "Match=COMPONENT=api\nMatch=COMPONENT=auth\nExclude=ROUTE=/healthz")
            try await h.journal.write([
                Self.line(h, "api request", component: "api", route: "/v1/orders"),
                Self.line(h, "api health check", component: "api", route: "/healthz"),
                Self.line(h, "worker tick", component: "worker"),
                Self.line(h, "auth login", component: "auth", route: "/login"),
                Self.line(h, "the last line, chosen", component: "api"),
            ])
            try await poll("the chosen lines at the backend", seconds: 60, every: .milliseconds(100)) {
                h.backend.records.map(\.body).contains("the last line, chosen")
            }
            #expect(h.backend.records.map(\.body) == ["api request", "auth login", "the last line, chosen"])

            // The operator now wants the worker's lines only.
            try h.writeApp("Match=COMPONENT=worker")
            let reload = try await h.ctl(["reload"])
            #expect(reload.status == 0, "\(reload.stderr)")
            try await h.waitServing()
            try await h.journal.write([
                Self.line(h, "api after the reload", component: "api"),
                Self.line(h, "worker after the reload", component: "worker"),
            ])
            try await poll("the worker's line at the backend", seconds: 60, every: .milliseconds(100)) {
                h.backend.records.map(\.body).contains("worker after the reload")
            }
            let bodies = h.backend.records.map(\.body)
            #expect(!bodies.contains("api after the reload"))
            // Lines read before the reload are not read again under the new choice.
            #expect(!bodies.contains("worker tick"))
            #expect(bodies.filter { $0 == "api request" }.count == 1)
        }
    }
}
