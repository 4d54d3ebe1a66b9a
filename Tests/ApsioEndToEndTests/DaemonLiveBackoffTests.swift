import ApsioAgent
import ApsioCore
import ApsioJSON
import ApsioLive
import Foundation
@testable import ApsioTestSupport
import Testing

/// 16.4 on the built `apsiod`: "On 429, 5xx or 3xx: the next hello goes after Retry-After ...;
/// during a live session, the device pauses next and frames until Retry-After." The backend named
/// a moment; until it, nothing of any kind arrives from the device, whichever request was told,
/// and the session ending does not make the device forget it.
@Suite(.serialized) struct DaemonLiveBackoffTests {
    /// Long enough that the hello due 15 s after the session's falls inside it.
    static let retryAfter: Duration = .seconds(20)
    static let unavailable = LiveResponse.status(503, body: [], retryAfter: retryAfter)

    enum Told: String, CaseIterable, Sendable { case frames, next, results, hello }

    /// A viewer watching an app that streams its logs only (no readings of its own to send), the
    /// hello answered every 15 s.
    static func watched(_ h: AgentHarness) async throws {
        try await h.serve(try h.policy(), appFile: "Families=logs errors")
        try await h.startLiveSession(interval: 15)
    }

    static func write(_ h: AgentHarness, _ line: String) async throws {
        try await h.journal.write([h.journal.entry(unit: AgentHarness.unit, message: line)])
    }

    /// Whichever request gets the 503 with `Retry-After`, the device sends nothing at all until it
    /// passes — no `frames`, no `next`, no `results`, no hello — though it has lines to stream, a
    /// command's result to send and a hello falling due meanwhile; then all of them go.
    @Test(arguments: Told.allCases)
    func aRetryAfterOnAnyRequestHoldsEveryRequestUntilItPasses(_ told: Told) async throws {
        try await AgentHarness.with { h in
            try await Self.watched(h)
            // When the request told arrived: the device reads the answer after that, so the moment
            // the backend named is no earlier than this plus the Retry-After.
            let told503: ContinuousClock.Instant
            switch told {
            case .frames:
                let before = h.live.requests(to: "/v1/live/frames").count
                h.live.answerNextFrames([Self.unavailable])
                try await Self.write(h, "answered 503")
                try await poll("the frames body answered 503", seconds: 30, every: .milliseconds(100)) { h.live.requests(to: "/v1/live/frames").count > before }
                told503 = h.live.requests(to: "/v1/live/frames")[before].arrivedAt
            case .next:
                told503 = .now
                h.live.releaseNext(Self.unavailable)
            case .results:
                h.live.answerNextResults([Self.unavailable])
                // Replay is off: the screenshot is refused at once, and its result goes.
                h.live.releaseNext(AgentHarness.next(commands: [("shot-1", "screenshot")]))
                try await poll("the result answered 503", seconds: 30, every: .milliseconds(100)) { !h.resultsBodies.isEmpty }
                told503 = try #require(h.live.requests(to: "/v1/live/results").first).arrivedAt
            case .hello:
                let before = h.hellos.count
                h.live.answerNextHellos([Self.unavailable])
                try await poll("the hello of the session's renewal, answered 503", seconds: 30, every: .milliseconds(100)) { h.hellos.count > before }
                told503 = h.hellos[before].arrivedAt
            }
            let (windowStart, end) = try await Self.window(h, after: told503)

            // Meanwhile the device has a line to stream and, while a `next` is still held, a
            // command to answer.
            try await Self.write(h, "written during the hold")
            let command = h.live.heldNextCount == 1
            if command { h.live.releaseNext(AgentHarness.next(commands: [("shot-2", "screenshot")])) }

            try await poll("the line streamed after the hold", seconds: 60, every: .milliseconds(100)) { h.streamedLines.contains("written during the hold") }
            if command {
                try await poll("the result sent after the hold", seconds: 30, every: .milliseconds(100)) {
                    h.resultsBodies.contains { $0["id"] == .string("shot-2") }
                }
            }
            if told == .results {
                // Sent once more, after the backoff.
                try await poll("the result sent again", seconds: 30, every: .milliseconds(100)) {
                    h.resultsBodies.filter { $0["id"] == .string("shot-1") }.count == 2
                }
            }
            if told != .hello {
                try await poll("a hello after the hold", seconds: 30, every: .milliseconds(100)) { h.hellos.contains { $0.arrivedAt >= end } }
            }
            let during = h.liveArrivals(from: windowStart, before: end).map(\.request.path)
            #expect(during.isEmpty, "requests during the Retry-After told to \(told): \(during)")
        }
    }

    /// From the moment `apsioctl status` shows the device read the 503 (it says until when the
    /// backend asked for nothing) to the moment the backend named. What the device sent before it
    /// read the answer may still arrive after the 503 went, however late a loaded machine delivers
    /// it; what it decides after it has read it may not. A second's margin after the 503 for what
    /// was on its way; the test writes what it checks only once the device shows it read it.
    static func window(
        _ h: AgentHarness, after told503: ContinuousClock.Instant
    ) async throws -> (ContinuousClock.Instant, ContinuousClock.Instant) {
        let toldWallMs = Int64(Date().timeIntervalSince1970 * 1000) - milliseconds(ContinuousClock.now - told503)
        try await poll("apsioctl status saying until when the backend asked for nothing", seconds: 30, every: .milliseconds(100)) {
            (try? await h.liveHeldUntil()) != nil
        }
        let shown = ContinuousClock.now
        let held = try await h.liveHeldUntil()
        // The device read the answer after it went: the moment it keeps is no earlier than the
        // one the backend named from then (a millisecond for the test's own reading of the clocks).
        #expect(try #require(held) >= toldWallMs + milliseconds(retryAfter) - 1, "the hold shown is shorter than the Retry-After")
        let start = max(told503 + .seconds(1), shown)
        try await Task.sleep(until: start, clock: .continuous)
        let end = told503 + retryAfter
        #expect(ContinuousClock.now < end, "the test itself came too late to see the hold")
        return (start, end)
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    /// A session that ends during the hold (a `stop` from the `next` still held) goes back to
    /// hellos, and the first of them still waits for the moment the backend named.
    @Test func aRetryAfterDuringASessionStillHoldsTheHelloAfterItEnds() async throws {
        try await AgentHarness.with { h in
            try await Self.watched(h)
            let before = h.live.requests(to: "/v1/live/frames").count
            h.live.answerNextFrames([Self.unavailable])
            try await Self.write(h, "answered 503")
            try await poll("the frames body answered 503", seconds: 30, every: .milliseconds(100)) { h.live.requests(to: "/v1/live/frames").count > before }
            let (windowStart, end) = try await Self.window(h, after: h.live.requests(to: "/v1/live/frames")[before].arrivedAt)

            h.live.answerHellos(AgentHarness.hello(viewers: 0, interval: 15))
            let stop: JSONValue = .object(["commands": .array([]), "stop": .string("viewers_left")])
            h.live.releaseNext(.status(200, json: stop, retryAfter: nil))
            try await poll("the session ended", seconds: 30, every: .milliseconds(100)) {
                let run = try? await h.ctl(["--json", "status", AgentHarness.app])
                let app = run.flatMap { JSONValueEncoding.decode(Array($0.stdout.utf8))?["apps"]?.arrayValue?.first }
                return app?["viewers"] == .number(0)
            }
            try await poll("a hello after the session", seconds: 60, every: .milliseconds(100)) { h.hellos.contains { $0.arrivedAt >= windowStart } }
            let during = h.liveArrivals(from: windowStart, before: end).map(\.request.path)
            #expect(during.isEmpty, "requests during the Retry-After: \(during)")
        }
    }

    /// A policy that drops its `live` object (live inspection off) and then names the same origin
    /// again does not make the device forget the moment that backend named: its next hello still
    /// waits for it. Found by apsio-check (a tester unlisted and listed again).
    @Test func aPolicyWithoutLiveAndThenTheSameOriginStillHoldsTheHello() async throws {
        try await AgentHarness.with { h in
            try await Self.watched(h)
            let before = h.hellos.count
            h.live.answerNextHellos([Self.unavailable])
            try await poll("the renewal hello, answered 503", seconds: 30, every: .milliseconds(100)) { h.hellos.count > before }
            let (windowStart, end) = try await Self.window(h, after: h.hellos[before].arrivedAt)

            for live in [false, true] {
                let seen = h.log.components(separatedBy: "a new policy from the backend").count
                h.backend.setPolicy(try h.policy(live: live))
                let reload = try await h.ctl(["reload"])
                #expect(reload.status == 0, "\(reload.stderr)")
                try await poll("the policy \(live ? "with" : "without") live read", seconds: 30, every: .milliseconds(100)) {
                    h.log.components(separatedBy: "a new policy from the backend").count > seen
                }
            }
            #expect(ContinuousClock.now < end, "the test itself came too late to see the hold")
            try await poll("a hello after the hold", seconds: 60, every: .milliseconds(100)) { h.hellos.contains { $0.arrivedAt >= end } }
            let during = h.liveArrivals(from: windowStart, before: end).map(\.request.path)
            #expect(during.isEmpty, "requests during the Retry-After: \(during)")
        }
    }
}
