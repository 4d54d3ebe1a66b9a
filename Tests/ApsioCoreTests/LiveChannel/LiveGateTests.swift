import ApsioCore
import Testing

/// 16.1: the two keys, and stopping at once.
@Suite struct LiveGateTests {
    @Test func offUntilAllowLiveIsTurnedOn() {
        var h = LiveHarness()
        h.send(.identity(LiveHarness.identity))
        h.send(.consent(true))
        h.send(.tester(LiveHarness.proof))
        h.send(.foreground(.active))
        h.run(for: .seconds(600))
        #expect(!h.log.sentAnything)
        #expect(h.channel.state == .closed)
        #expect(h.send(.allowed(true)).helloBodies.count == 1)
    }

    @Test func noTesterEntryMeansNoHello() {
        var h = LiveHarness()
        h.openChannel()
        h.log.removeAll()
        h.send(.tester(nil))
        h.run(for: .seconds(300))
        #expect(!h.log.sentAnything)
    }

    /// "When the channel closes, the SDK MUST stop at once: it cancels its requests in flight and
    /// sends nothing more on it."
    @Test(arguments: [LiveEvent.allowed(false), .consent(false), .killSwitch(true), .foreground(.background), .tester(nil)])
    func mustStopAtOnceWhenTheChannelCloses(_ closing: LiveEvent) throws {
        var h = LiveHarness()
        h.startSession()
        h.send(.record(record("one")))
        h.advance(.seconds(1))
        let inFlight = h.channel.requestsInFlight
        #expect(!inFlight.isEmpty)
        let actions = h.send(closing)
        #expect(Set(actions.cancelled) == inFlight)
        #expect(!actions.sentAnything)
        // No `ended` body on `closed`.
        #expect(actions.sessionEnds == [.reason(.closed)])
        #expect(!h.channel.holdsToken && !h.channel.isInSession)
        h.log.removeAll()
        h.send(.record(record("two")))
        h.run(for: .seconds(600))
        #expect(!h.log.sentAnything)
    }

    @Test func theIndicatorGoesWhenTheChannelCloses() {
        var h = LiveHarness()
        h.startSession(viewers: 2)
        #expect(h.channel.viewers == 2)
        #expect(h.log.contains(.viewers(2)))
        #expect(h.send(.allowed(false)).contains(.viewers(0)))
    }

    /// "Withdrawing consent or live inspection, and the kill switch, also end a raised log level."
    @Test(arguments: [LiveEvent.allowed(false), .consent(false), .killSwitch(true)])
    func withdrawalEndsARaisedLogLevel(_ withdrawal: LiveEvent) throws {
        var h = LiveHarness()
        h.startSession()
        let next = try h.openNext()
        h.send(.answered(next, nextAnswer(commands: [("c1", "raise_log_level")])))
        #expect(h.channel.isLogLevelRaised)
        #expect(h.send(withdrawal).contains(.restoreLogLevel))
        #expect(!h.channel.isLogLevelRaised)
    }

    @Test func theUnitStoppingDoesNotEndARaisedLogLevel() throws {
        var h = LiveHarness()
        h.startSession()
        let next = try h.openNext()
        h.send(.answered(next, nextAnswer(commands: [("c1", "raise_log_level")])))
        let actions = h.send(.foreground(.background))
        #expect(!actions.contains(.restoreLogLevel))
        #expect(h.channel.isLogLevelRaised)
    }

    /// The hello names the entry and carries its proof, and nothing that identifies the install
    /// beyond `install` itself.
    @Test func helloSendsTheEntryAndItsProof() throws {
        var h = LiveHarness()
        let hello = try #require(h.openChannel().helloBodies.first)
        #expect(hello.1["tester"] == .string("qa-box-7"))
        #expect(hello.1["proof"] == .string(LiveHarness.proof.secretHex))
        #expect(hello.1["install"] == .string(LiveHarness.identity.install))
        #expect(hello.1["os"] == .string("Debian GNU/Linux 12"))
        #expect(hello.1["reason"] == nil)
        #expect(hello.2 == nil)
    }

    @Test func aNewOriginCarriesNothingOver() throws {
        var h = LiveHarness()
        h.startSession()
        let actions = h.send(.originChanged)
        #expect(actions.sessionEnds == [.reason(.closed)])
        // The hello to the new origin goes at once, without the old token.
        let hello = try #require(actions.helloBodies.last)
        #expect(hello.2 == nil)
    }
}
