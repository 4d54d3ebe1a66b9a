import ApsioAgent
import ApsioCore
import Foundation
@testable import ApsioTestSupport
import Testing

/// A reload restarts an app whose file changed; the backend still sees the same install, so 16.4
/// holds across it on the built `apsiod`: the backend's `Retry-After`, the hello's cadence, and
/// "the device MUST run each command id at most once" (`LiveChannelMemory`).
@Suite(.serialized) struct DaemonReloadLiveMemoryTests {
    static let retryAfter: Duration = .seconds(30)
    /// The app file before and after the operator's edit: a line that restarts the app.
    static let before = "Families=logs errors"
    static let after = "Families=logs errors\nRedact=order=[0-9]+"

    static func reload(_ h: AgentHarness) async throws {
        try h.writeApp(after)
        let reload = try await h.ctl(["reload"])
        #expect(reload.status == 0, "\(reload.stderr)")
    }

    /// The session's renewal hello answered 503 with `Retry-After`, then the app file edited and
    /// read again: the restarted app sends nothing until the moment the backend named, then says
    /// hello.
    @Test func theBackendsRetryAfterOutlivesAReloadThatRestartsTheApp() async throws {
        try await AgentHarness.with { h in
            try await h.serve(try h.policy(), appFile: Self.before)
            try await h.startLiveSession(interval: 15)
            let before = h.hellos.count
            h.live.answerNextHellos([.status(503, body: [], retryAfter: Self.retryAfter)])
            try await poll("the renewal hello, answered 503", seconds: 30, every: .milliseconds(100)) { h.hellos.count > before }
            let told503 = h.hellos[before].arrivedAt
            // The device reads the answer before the reload stops the app: a request the reload
            // cancels on its way tells the new app only that it went (the cadence), not what its
            // answer would have said. The wait is the test's, not a claim about the device.
            try await Task.sleep(until: told503 + .seconds(3), clock: .continuous)

            try await Self.reload(h)
            // From a second after the 503 (what went before the device read it has arrived by then).
            let windowStart = told503 + .seconds(1)
            let end = told503 + Self.retryAfter
            #expect(ContinuousClock.now < end, "the test itself came too late to see the hold")
            try await poll("a hello after the hold", seconds: 90, every: .milliseconds(100)) { h.hellos.contains { $0.arrivedAt >= end } }
            let during = h.liveArrivals(from: windowStart, before: end).map(\.request.path)
            #expect(during.isEmpty, "requests during the Retry-After, across the reload: \(during)")
            #expect(h.log.contains("configuration read again"))
        }
    }

    /// A command run before the reload that comes again after it, in the restarted app's session,
    /// is answered with the result it had (the same `at`) without running again; and the first hello
    /// of the restarted app keeps the 15 s cadence of the hellos before it.
    @Test func aCommandThatComesAgainAfterAReloadIsAnsweredFromMemory() async throws {
        try await AgentHarness.with { h in
            try await h.serve(try h.policy(), appFile: Self.before)
            try await h.startLiveSession(interval: 15)
            let first = try await h.run(command: "diagnostics", id: "diag-1")

            let seen = h.live.seen.count
            let lastHello = try #require(h.hellos.last).arrivedAt
            let reloadedAt = ContinuousClock.now
            try await Self.reload(h)
            try await poll("a hello and a live session again after the reload", seconds: 60, every: .milliseconds(100)) {
                DaemonReloadTests.helloThenLive(h, after: seen)
            }
            let early = h.hellos.filter { $0.arrivedAt >= reloadedAt && $0.arrivedAt < lastHello + .seconds(14) }
            #expect(early.isEmpty, "a hello \(early.map { $0.arrivedAt - lastHello }) after the last one, with 15 s to wait")

            try await poll("next held", seconds: 30, every: .milliseconds(100)) { h.live.heldNextCount == 1 }
            h.live.releaseNext(AgentHarness.next(commands: [("diag-1", "diagnostics")]))
            try await poll("the result sent again", seconds: 60, every: .milliseconds(100)) {
                h.resultsBodies.filter { $0["id"] == .string("diag-1") }.count == 2
            }
            let again = try #require(h.resultsBodies.last { $0["id"] == .string("diag-1") })
            #expect(again == first, "the kept result, not a second run")
        }
    }
}
