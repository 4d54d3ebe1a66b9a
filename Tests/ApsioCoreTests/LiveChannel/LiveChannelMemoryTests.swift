import ApsioCore
import Testing

/// A reload restarts an app whose file changed, in the same process: the backend sees the same
/// install, so 16.4 holds across the restart (`LiveChannelMemory`). The channel started again is
/// told what the old one remembered, right after its origin.
@Suite struct LiveChannelMemoryTests {
    static let origin = LiveOrigin("https://live.example.com")!

    /// The old channel's memory, kept for `origin`, told to a new channel on the same clock, which
    /// is then opened as the daemon opens it.
    static func restarted(from old: LiveHarness, origin: LiveOrigin = LiveChannelMemoryTests.origin) -> (LiveHarness, [LiveAction]) {
        var memory = old.channel.memory
        memory.origin = Self.origin
        var new = LiveHarness()
        new.now = old.now
        new.send(.originChanged)
        if memory.origin == origin { new.send(.recalled(memory)) }
        let opened = new.openChannel()
        return (new, opened)
    }

    /// Answered with a 15 s interval five seconds ago: the restarted channel says hello 15 s after
    /// that hello, not at once.
    @Test func theHelloKeepsItsCadence() throws {
        var old = LiveHarness()
        let hello = try #require(old.openChannel().helloID)
        old.send(.answered(hello, .status(200, json: old.helloBody(viewers: 0, interval: 15), retryAfter: nil)))
        old.advance(.seconds(5))

        var (new, opened) = Self.restarted(from: old)
        #expect(opened.helloBodies.isEmpty, "a hello 5 s after the last, with a 15 s interval")
        #expect(!new.wakeAtDeadlines(for: .seconds(10) - .milliseconds(1)).sentAnything)
        #expect(new.wakeAtDeadlines(for: .milliseconds(1)).helloBodies.count == 1)
    }

    /// A hello still in flight when the app stopped may have reached the backend: the next waits
    /// the interval from it.
    @Test func aHelloInFlightCountsAsAnswered() throws {
        var old = LiveHarness()
        #expect(old.openChannel().helloID != nil)
        old.advance(.seconds(2))

        var (new, opened) = Self.restarted(from: old)
        #expect(opened.helloBodies.isEmpty)
        let interval = Limits.spec.defaultHelloInterval
        #expect(!new.wakeAtDeadlines(for: interval - .seconds(2) - .milliseconds(1)).sentAnything)
        #expect(new.wakeAtDeadlines(for: .milliseconds(1)).helloBodies.count == 1)
    }

    /// The moment the backend named and the backoff outlive the restart.
    @Test func theRetryAfterOutlivesTheRestart() throws {
        var old = LiveHarness()
        let hello = try #require(old.openChannel().helloID)
        old.send(.answered(hello, .status(503, body: [], retryAfter: .seconds(90))))
        old.advance(.seconds(1))

        var (new, opened) = Self.restarted(from: old)
        #expect(!opened.sentAnything)
        #expect(!new.wakeAtDeadlines(for: .seconds(89) - .milliseconds(1)).sentAnything)
        #expect(new.wakeAtDeadlines(for: .milliseconds(1)).helloBodies.count == 1)
    }

    /// Kept for one origin: a restarted app whose policy names another backend says hello at once.
    @Test func anotherOriginRecallsNothing() throws {
        var old = LiveHarness()
        let hello = try #require(old.openChannel().helloID)
        old.send(.answered(hello, .status(503, body: [], retryAfter: .seconds(90))))

        let (_, opened) = Self.restarted(from: old, origin: LiveOrigin("https://other.example.com")!)
        #expect(opened.helloBodies.count == 1)
    }

    /// A command that comes again in the restarted app's session is answered from memory, not run
    /// twice; one still running when the app stopped was cancelled with it, and runs.
    @Test func aCommandRunBeforeTheRestartIsNotRunAgain() throws {
        var old = LiveHarness()
        old.startSession()
        var next = try old.openNext()
        let served = old.send(.answered(next, nextAnswer(commands: [("c1", "diagnostics"), ("c2", "screenshot")])))
        #expect(served.commandsRun == ["c1", "c2"])
        let result = CommandResult(id: "c1", name: "diagnostics", outcome: .done, atUnixMs: 1, result: .encoded(Array("{}".utf8)))
        old.send(.commandFinished(result))
        old.advance(.seconds(1))

        var (new, _) = Self.restarted(from: old)
        let hello = try #require(new.run(for: Limits.spec.defaultHelloInterval).helloID)
        new.send(.answered(hello, .status(200, json: new.helloBody(viewers: 1), retryAfter: nil)))
        next = try new.openNext()
        let again = new.send(.answered(next, nextAnswer(commands: [("c1", "diagnostics"), ("c2", "screenshot")])))
        #expect(again.commandsRun == ["c2"])
        #expect(again.results.first?.1["id"] == .string("c1"))
    }
}
