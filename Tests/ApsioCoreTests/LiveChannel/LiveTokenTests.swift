import ApsioCore
import Testing

/// 16.4: the device token's life on the device.
@Suite struct LiveTokenTests {
    /// "During a live session such a hello only renews the presence: it neither starts nor ends a
    /// session, whatever viewers says"
    @Test func aHelloDuringASessionOnlyRenews() throws {
        var h = LiveHarness()
        h.startSession()
        let hello = try #require(h.run(for: .seconds(30)).helloID)
        let actions = h.send(.answered(hello, .status(200, json: h.helloBody(viewers: 0), retryAfter: nil)))
        #expect(actions.sessionEnds.isEmpty && h.channel.isInSession)
    }

    /// "A device that held a token and gets a 2xx hello answer without one drops it and ends its live
    /// session at once, without an ended body, and cancels next"
    @Test func aTokenlessHelloAnswerEndsTheSessionSilently() throws {
        var h = LiveHarness()
        h.startSession()
        let next = try h.openNext()
        let hello = try #require(h.run(for: .seconds(30)).helloID)
        let actions = h.send(.answered(hello, .status(200, json: h.helloBody(viewers: 1, token: nil), retryAfter: nil)))
        #expect(actions.sessionEnds == [.tokenLost])
        #expect(actions.frames.isEmpty)
        #expect(actions.cancelled.contains(next))
        #expect(!h.channel.holdsToken)
        // The next hello carries no token.
        let again = try #require(h.run(for: .seconds(30)).helloBodies.first)
        #expect(again.2 == nil)
    }

    @Test func aReplacedTokenEndsTheSessionThatHeldTheOldOne() throws {
        var h = LiveHarness()
        h.startSession()
        let hello = try #require(h.run(for: .seconds(30)).helloID)
        let actions = h.send(
            .answered(hello, .status(200, json: h.helloBody(viewers: 0, token: LiveHarness.otherToken), retryAfter: nil)))
        #expect(actions.sessionEnds == [.tokenLost])
        let later = try #require(h.run(for: .seconds(30)).helloBodies.first)
        #expect(later.2?.secretHex == LiveHarness.otherToken)
    }

    /// "On a 401 from next, frames or results ... the device ends its live session at once, without
    /// an ended body, cancels next, drops the token, and says hello again. That hello goes at once,
    /// unless the device already had a 401 ... within the last interval_s"
    /// A 401 speaks of the token its request carried: a slow `results` of the session an earlier
    /// token ran does not end the session that runs on the token held now.
    @Test func a401ForARequestSentWithAnEarlierTokenEndsNothing() throws {
        var h = LiveHarness()
        h.acceptsBodies = false
        h.startSession()
        let live = try #require(h.log.frames.first?.0)
        h.send(.answered(live, .status(202, body: [], retryAfter: nil)))
        let next = try h.openNext()
        h.send(.answered(next, nextAnswer(commands: [("s1", "screenshot")])))
        let slow = try #require(h.send(.commandFinished(CommandResult(
            id: "s1", name: "screenshot", outcome: .done, atUnixMs: 1, result: .encoded(Array("{}".utf8))))).results.first?.0)

        // A hello answered with another token: the old session ends, a new one starts on it.
        let hello = try #require(h.run(for: .seconds(30)).helloID)
        let replaced = h.send(
            .answered(hello, .status(200, json: h.helloBody(viewers: 1, token: LiveHarness.otherToken), retryAfter: nil)))
        #expect(replaced.sessionEnds == [.tokenLost])
        #expect(h.channel.isInSession)

        let late = h.send(.answered(slow, .status(401, body: [], retryAfter: nil)))
        #expect(late.sessionEnds.isEmpty, "the 401 was for the old token")
        #expect(h.channel.isInSession && h.channel.holdsToken)
        #expect(late.helloBodies.isEmpty)
    }

    @Test func a401FromNextEndsSilentlyAndHellosAtOnce() throws {
        var h = LiveHarness()
        h.startSession()
        let next = try h.openNext()
        let actions = h.send(.answered(next, .status(401, body: [], retryAfter: nil)))
        #expect(actions.sessionEnds == [.tokenLost])
        #expect(actions.frames.isEmpty)
        let hello = try #require(actions.helloBodies.first)
        #expect(hello.2 == nil)
    }

    @Test func a401FromFramesIsTheSameAsFromNext() throws {
        var h = LiveHarness()
        h.acceptsBodies = false
        let start = h.startSession()
        let frames = try #require(start.frames.first?.0)
        let next = try #require(start.nextIDs.first)
        let actions = h.send(.answered(frames, .status(401, body: [], retryAfter: nil)))
        #expect(actions.sessionEnds == [.tokenLost])
        #expect(actions.cancelled.contains(next))
        #expect(actions.helloBodies.count == 1)
    }

    @Test func aSecond401WithinTheIntervalWaitsForTheNextInterval() throws {
        var h = LiveHarness()
        h.startSession()
        let firstNext = try h.openNext()
        let first = h.send(.answered(firstNext, .status(401, body: [], retryAfter: nil)))
        let hello = try #require(first.helloID)
        h.advance(.seconds(5))
        h.send(.answered(hello, .status(200, json: h.helloBody(viewers: 1), retryAfter: nil)))
        let secondNext = try h.openNext()
        #expect(secondNext != firstNext)
        h.advance(.seconds(5))
        let second = h.send(.answered(secondNext, .status(401, body: [], retryAfter: nil)))
        #expect(second.helloBodies.isEmpty)
        // The regular schedule: 30 s after the last hello's answer, 25 s from now.
        #expect(h.run(for: .seconds(25) - .milliseconds(1)).helloBodies.isEmpty)
        #expect(h.advance(.milliseconds(1)).helloBodies.count == 1)
    }

    /// An answer to a request the channel already cancelled changes nothing.
    @Test func lateAnswersToCancelledRequestsAreIgnored() throws {
        var h = LiveHarness()
        h.startSession()
        let next = try h.openNext()
        h.send(.foreground(.interrupted))
        let actions = h.send(.answered(next, nextAnswer(commands: [("c1", "screenshot")])))
        #expect(actions.commandsRun.isEmpty)
        #expect(h.channel.holdsToken)
    }

    @Test func theTokenIsDroppedWhenTheChannelCloses() throws {
        var h = LiveHarness()
        h.startSession()
        h.send(.allowed(false))
        #expect(!h.channel.holdsToken)
        h.send(.allowed(true))
        // Turning it off and on does not burst hellos: the next one keeps its schedule, without the token.
        let hello = try #require(h.run(for: .seconds(30)).helloBodies.first)
        #expect(hello.2 == nil)
    }

    @Test func aPausedDeviceKeepsItsToken() throws {
        var h = LiveHarness()
        h.startSession()
        h.send(.modes(lowPower: false, lowData: true, dataSaver: false))
        #expect(h.channel.holdsToken)
    }

    /// "during a live session, the device pauses next and frames until Retry-After"
    @Test func a5xxOnNextPausesNextAndFramesUntilRetryAfter() throws {
        var h = LiveHarness()
        h.startSession()
        let next = try h.openNext()
        h.send(.answered(next, .status(503, body: [], retryAfter: .seconds(10))))
        h.log.removeAll()
        h.send(.record(record("during the pause")))
        h.run(for: .seconds(10) - .milliseconds(1))
        #expect(h.log.nextIDs.isEmpty && h.log.frames.isEmpty)
        let resumed = h.advance(.milliseconds(1))
        #expect(resumed.nextIDs.count == 1)
        #expect(resumed.frames.count == 1)
    }

    @Test func failuresOnNextWithoutRetryAfterBackOff() throws {
        var h = LiveHarness()
        h.startSession()
        var waits: [Duration] = []
        for _ in 0..<4 {
            let next = try h.openNext()
            let failedAt = h.now.mono
            h.send(.answered(next, .failed))
            let before = h.log.nextIDs.count
            while h.log.nextIDs.count == before {
                let deadline = try #require(h.channel.nextDeadline)
                h.now = h.now.advanced(by: deadline - h.now.mono)
                h.send(.tick)
            }
            waits.append(h.now.mono - failedAt)
        }
        #expect(waits == [.seconds(1), .seconds(2), .seconds(4), .seconds(8)])
    }
}
