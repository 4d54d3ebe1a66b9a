import ApsioAgent
import ApsioCore
import Foundation
@testable import ApsioTestSupport
import Testing

/// 16.3 Pause on the built `apsiod`: "the device sends, when the network allows, one frames body
/// with state paused and the reason, then nothing, next included, until it resumes, which it says
/// the same way with state live." The viewers learn why the stream stopped, from the device,
/// before the session's 60 paused seconds run out.
@Suite(.serialized) struct DaemonLivePauseTests {
    static let networkManager = "org.freedesktop.NetworkManager"
    static let networkManagerPath = "/org/freedesktop/NetworkManager"

    /// The unit reloads (interrupted: the session pauses) while a 503's `Retry-After` holds the
    /// channel. The app streams its logs only, so nothing of its own wakes the device, and hellos
    /// come every 120 s: the paused body goes when the `Retry-After` passes, not at the end of the
    /// 60 paused seconds as an `ended` one.
    @Test func aPausedBodyHeldByARetryAfterGoesWhenItPasses() async throws {
        try await AgentHarness.with { h in
            try await h.serve(try h.policy(), appFile: "Families=logs errors")
            try await h.startLiveSession(interval: 120)
            let retryAfter: Duration = .seconds(10)
            let before = h.live.requests(to: "/v1/live/frames").count
            h.live.answerNextFrames([.status(503, body: [], retryAfter: retryAfter)])
            try await h.journal.write([h.journal.entry(unit: AgentHarness.unit, message: "answered 503")])
            try await poll("the frames body answered 503", seconds: 30, every: .milliseconds(100)) { h.live.requests(to: "/v1/live/frames").count > before }
            let told503 = h.live.requests(to: "/v1/live/frames")[before].arrivedAt
            let end = told503 + retryAfter

            // The device holds from when it reads the answer, after the backend wrote it: the
            // pause comes once `apsioctl status` says it holds, so it comes during the hold. (A
            // pause before the device has read the 503 is no pause during a Retry-After: on a
            // loaded machine that read can come a second or more after the answer was written.)
            try await poll("the device saying it holds", seconds: 30, every: .milliseconds(100)) {
                (try? await h.ctl(["status"]))?.stdout.contains("asked for nothing") ?? false
            }
            let pausedAt = ContinuousClock.now
            try await h.setUnit([["ActiveState", "s", "reloading"]])
            #expect(ContinuousClock.now < end, "the test itself came too late to pause during the hold")

            try await poll("a paused or ended body", seconds: 90, every: .milliseconds(100)) {
                h.framesBodies.dropFirst(before + 1).contains { $0["state"] != .string("live") }
            }
            let told = try #require(h.framesBodies.dropFirst(before + 1).first { $0["state"] != .string("live") })
            #expect(told["state"] == .string("paused"))
            #expect(told["reason"] == .string("inactive"))
            let during = h.liveArrivals(from: pausedAt, before: end).map {
                "\($0.request.path) \($0.body?["state"]?.stringValue ?? "")"
            }
            #expect(during.isEmpty, "requests during the Retry-After: \(during)")
        }
    }

    enum SavingMode: String, CaseIterable, Sendable { case dataSaver = "data_saver", lowData = "low_data" }

    /// Data Saver (`apsioctl data-saver on`) or Low Data Mode (NetworkManager's `Metered` is yes)
    /// during a session: one `paused` body naming it, then nothing at all — no `next`, and no
    /// hello though one falls due — until the mode goes off and a `live` body says the session
    /// resumed.
    @Test(arguments: SavingMode.allCases)
    func aSavingModeSaysSoOnceThenSendsNothingUntilItResumes(_ mode: SavingMode) async throws {
        try await AgentHarness.with { h in
            if mode == .lowData {
                try await h.bus.startTemplate("networkmanager", busName: Self.networkManager)
                _ = try await h.bus.mock(
                    Self.networkManager, Self.networkManagerPath, "AddProperty", "ssv", Self.networkManager, "Metered", "u", "2")
            }
            try await h.serve(try h.policy(), appFile: "Families=logs errors")
            try await h.startLiveSession(interval: 15)
            let sessionStart = try #require(h.hellos.last).arrivedAt
            let before = h.framesBodies.count

            try await set(mode, on: true, h)
            @Sendable func isPaused(_ seen: ScriptedLiveBackend.Seen) -> Bool { seen.body?["state"] == .string("paused") }
            try await poll("the paused body", seconds: 30, every: .milliseconds(100)) { h.live.requests(to: "/v1/live/frames").contains(where: isPaused) }
            let paused = try #require(h.live.requests(to: "/v1/live/frames").first(where: isPaused))
            #expect(paused.body?["reason"] == .string(mode.rawValue))
            let pausedArrival = paused.arrivedAt

            // Past the moment the next hello was due, with a line to stream.
            try await h.journal.write([h.journal.entry(unit: AgentHarness.unit, message: "written while paused")])
            try await Task.sleep(until: sessionStart + .seconds(20), clock: .continuous)
            let resumedAt = ContinuousClock.now
            try await set(mode, on: false, h)
            try await poll("the live body and a next after the pause", seconds: 30, every: .milliseconds(100)) {
                h.framesBodies.dropFirst(before).contains { $0["state"] == .string("live") } && h.live.heldNextCount == 1
            }
            let during = h.liveArrivals(from: pausedArrival + .nanoseconds(1), before: resumedAt).map(\.request.path)
            #expect(during.isEmpty, "requests while \(mode) held the channel: \(during)")
            #expect(!h.streamedLines.contains("written while paused"), "live data is not queued")
        }
    }

    func set(_ mode: SavingMode, on: Bool, _ h: AgentHarness) async throws {
        switch mode {
        case .dataSaver:
            let run = try await h.ctl(["data-saver", on ? "on" : "off"])
            #expect(run.status == 0, "\(run.stderr)")
        case .lowData:
            _ = try await h.bus.mock(
                Self.networkManager, Self.networkManagerPath, "UpdateProperties", "sa{sv}", Self.networkManager, "1", "Metered",
                "u", on ? "1" : "2")
        }
    }
}
