import ApsioPOSIX
import ApsioCore
import ApsioNet
import Testing
import ApsioLive
import ApsioTestSupport

@Suite struct LiveRuntimeTests {
    static let install = "6f1c2a4e-8b7d-4c1e-9a53-2d0f7e6b1c90"
    static let token = String(repeating: "c3", count: 32)
    let sha = OpenSSLSHA256()

    func entry() -> TesterEntry {
        let proof = TesterProof(entryID: "qa-box-7", installationID: Self.install, hashing: sha)
        return TesterEntry(id: "qa-box-7", match: proof.match(hashing: sha), expiresAt: 1_900_000_000)
    }

    func makeRuntime(_ backend: ScriptedLiveBackend, _ host: RecordingLiveHost, _ clock: ManualAgentClock) async -> LiveRuntime {
        let runtime = LiveRuntime(
            installationID: Self.install, dayBytes: DayBytes(day: 0, bytes: 0), clock: clock, host: host, hashing: sha,
            makeTransport: { _ in backend })
        await runtime.send(.identity(LiveIdentity(
            install: Self.install, session: nil, model: "box", os: "Debian GNU/Linux 12", release: "1.0")))
        await runtime.send(.consent(true))
        await runtime.send(.foreground(.active))
        await runtime.configure(origin: LiveOrigin("http://127.0.0.1:8787"), testers: [entry()])
        return runtime
    }

    /// A runtime whose hello was answered with a viewer: its session's first frames went and its
    /// `next` is held.
    func sessionStarted() async throws -> (ScriptedLiveBackend, RecordingLiveHost, ManualAgentClock, LiveRuntime) {
        let backend = ScriptedLiveBackend()
        backend.answerHellos(.status(200, json: .object(["viewers": .number(1), "device_token": .string(Self.token)]), retryAfter: nil))
        let host = RecordingLiveHost()
        let clock = ManualAgentClock()
        let runtime = await makeRuntime(backend, host, clock)
        await runtime.send(.allowed(true))
        try await until("the session's first frames and next", on: [backend.changes, clock]) {
            backend.seen.contains { $0.request.path == "/v1/live/frames" } && backend.heldNextCount == 1
        }
        return (backend, host, clock, runtime)
    }

    @Test func nothingGoesOutUntilAllowLiveIsOn() async throws {
        let backend = ScriptedLiveBackend()
        let clock = ManualAgentClock()
        let runtime = await makeRuntime(backend, RecordingLiveHost(), clock)
        clock.advance(by: .seconds(600))
        await Task.yield()
        #expect(backend.seen.isEmpty)
        await runtime.send(.allowed(true))
        try await until("a hello", on: [backend.changes, clock]) { backend.seen.count == 1 }
        #expect(backend.seen[0].request.path == "/v1/live/hello")
        #expect(backend.seen[0].body?["proof"]?.stringValue?.count == 64)
        await runtime.stop()
    }

    /// The whole loop: a hello with viewers starts a session; frames and next carry the token;
    /// a screenshot runs, shows a notice, and its result goes back; turning allow-live off
    /// cancels the held `next` at once.
    @Test func aSessionEndToEndOnTheScriptedBackend() async throws {
        let (backend, host, clock, runtime) = try await sessionStarted()
        let frames = try #require(backend.seen.first { $0.request.path == "/v1/live/frames" })
        #expect(frames.body?["state"] == .string("live"))
        #expect(frames.request.token?.secretHex == Self.token)
        let next = try #require(backend.seen.first { $0.request.path.hasPrefix("/v1/live/next") })
        #expect(next.request.path == "/v1/live/next?install=\(Self.install)")
        #expect(next.request.token?.secretHex == Self.token)
        #expect(host.received.contains(.viewers(1)))

        backend.releaseNext(.status(200, json: .object([
            "commands": .array([.object(["id": .string("s1"), "name": .string("screenshot"), "args": .object([:])])]),
            "viewers": .number(1), "remaining_ms": .number(1_800_000),
        ]), retryAfter: nil))
        try await until("the screenshot's result", on: [backend.changes, clock]) { backend.seen.contains { $0.request.path == "/v1/live/results" } }
        let result = try #require(backend.seen.first { $0.request.path == "/v1/live/results" })
        #expect(result.body?["id"] == .string("s1"))
        #expect(result.body?["result"]?["wireframe"]?["processes"] != nil)
        #expect(host.received.contains(.notice(.screenshot)))

        clock.advance(by: .milliseconds(300))
        try await until("next asked again", on: [backend.changes, clock]) { backend.heldNextCount == 1 }
        let before = backend.seen.count
        await runtime.send(.allowed(false))
        try await until("the held next cancelled", on: [backend.changes, clock]) { backend.cancelledNext == 1 }
        #expect(await runtime.requestsInFlight == 0)
        #expect(host.received.contains(.viewers(0)))
        clock.advance(by: .seconds(600))
        await Task.yield()
        #expect(backend.seen.count == before)
        await runtime.stop()
    }

    /// 16.3: the day's count is kept before the body it counts goes. A body whose count could not
    /// be written does not go, so the backend never has bytes the disk does not count; the
    /// session ends, and a new one waits until a count is written again.
    @Test func aBodyWhoseCountCannotBeKeptDoesNotGo() async throws {
        let (backend, host, clock, runtime) = try await sessionStarted()
        #expect(!host.keptCounts.isEmpty)
        let framesBefore = backend.seen.filter { $0.request.path == "/v1/live/frames" }.count

        host.keeps.withLock { $0 = false }
        clock.advance(by: .seconds(1))
        await runtime.send(.record(LogRecord(
            timeUnixNano: 1, severityNumber: 9, severityText: "INFO", family: .logs, body: "a line not to be sent")))
        try await until("the session ended", on: [host.changes, clock]) {
            host.received.contains(.sessionEnded(.reason(.dayBytes)))
        }
        // Whatever was started has arrived, or been answered as failed, once nothing is in flight.
        try await until("nothing in flight", on: [backend.changes, clock, runtime]) { await runtime.requestsInFlight == 0 }
        #expect(backend.seen.filter { $0.request.path == "/v1/live/frames" }.count == framesBefore)
        await runtime.stop()
    }

    @Test func hellosFollowTheClock() async throws {
        let backend = ScriptedLiveBackend()
        let clock = ManualAgentClock()
        let runtime = await makeRuntime(backend, RecordingLiveHost(), clock)
        await runtime.send(.allowed(true))
        try await until("the first hello", on: [backend.changes, clock]) { backend.seen.count == 1 }
        for count in 2...4 {
            try await clock.waitAsleep("the runtime asleep until the next hello") { !$0.isEmpty }
            clock.advance(by: .seconds(30))
            try await until("hello \(count)", on: [backend.changes, clock]) { backend.seen.count == count }
        }
        await runtime.stop()
    }

    @Test func aTesterEntryThatExpiresClosesTheChannel() async throws {
        let backend = ScriptedLiveBackend()
        let clock = ManualAgentClock(LiveNow(mono: .origin, wallUnixMs: 1_899_999_990_000))
        let runtime = await makeRuntime(backend, RecordingLiveHost(), clock)
        await runtime.send(.allowed(true))
        #expect(await runtime.state == .open)
        clock.advance(by: .seconds(11))
        await runtime.send(.tick)
        #expect(await runtime.state == .closed)
        await runtime.stop()
    }

    @Test func noLiveObjectMeansClosed() async throws {
        let backend = ScriptedLiveBackend()
        let clock = ManualAgentClock()
        let runtime = await makeRuntime(backend, RecordingLiveHost(), clock)
        await runtime.configure(origin: nil, testers: [entry()])
        await runtime.send(.allowed(true))
        clock.advance(by: .seconds(300))
        await Task.yield()
        #expect(await runtime.state == .closed)
        #expect(backend.seen.isEmpty)
        await runtime.stop()
    }
}
