import ApsioCore
import ApsioJSON
import Testing

/// 16.3: start, pause, resume and the ends of a live session.
@Suite struct LiveSessionTests {
    /// "the device sends at once a frames body with state live ... then waits for commands"
    @Test func aHelloWithViewersStartsWithALiveBodyThenNext() throws {
        var h = LiveHarness()
        let actions = h.startSession()
        #expect(actions.framesStates == ["live"])
        #expect(actions.nextIDs.count == 1)
        #expect(actions.contains(.sessionStarted))
        let frames = try #require(actions.frames.first)
        #expect(frames.1["install"] == .string(LiveHarness.identity.install))
        #expect(frames.1["lines"] == .array([]))
        // Frames, next and results carry the token; the ordering is live body first.
        let firstFrames = try #require(actions.firstIndex { if case .sendFrames = $0 { return true } else { return false } })
        let firstNext = try #require(actions.firstIndex { if case .openNext = $0 { return true } else { return false } })
        #expect(firstFrames < firstNext)
    }

    @Test func aHelloWithNoViewersStartsNothing() throws {
        var h = LiveHarness()
        h.startSession(viewers: 0)
        #expect(!h.channel.isInSession)
        #expect(h.log.frames.isEmpty)
    }

    /// `next` is asked again at once after each answer, one at a time.
    @Test func nextIsAskedAgainAfterEachAnswerOneAtATime() throws {
        var h = LiveHarness()
        h.startSession()
        for _ in 0..<5 {
            let open = h.log.nextIDs
            #expect(open.count >= 1)
            let actions = h.send(.answered(open.last!, .status(204, body: [], retryAfter: nil)))
            // Never two at once; the spacing floor may defer the next one a moment.
            #expect(actions.nextIDs.count <= 1)
            h.run(for: .seconds(1))
        }
        #expect(h.log.nextIDs.count == 6)
    }

    /// "the device sends, when the network allows, one frames body with state paused and the
    /// reason, then nothing, next included, until it resumes, which it says the same way with
    /// state live."
    @Test func aPauseSendsOnePausedBodyThenNothingUntilItResumes() throws {
        var h = LiveHarness()
        h.startSession()
        let next = try h.openNext()
        let pause = h.send(.foreground(.interrupted))
        #expect(pause.cancelled.contains(next))
        #expect(pause.framesStates == ["paused"])
        #expect(pause.frames.first?.1["reason"] == .string("inactive"))
        h.log.removeAll()
        h.send(.record(record("while paused")))
        let during = h.run(for: .seconds(59))
        #expect(during.frames.isEmpty && during.nextIDs.isEmpty)
        let resume = h.send(.foreground(.active))
        #expect(resume.framesStates == ["live"])
        #expect(resume.nextIDs.count == 1)
        // The line written while paused was never sent.
        #expect(!h.log.frames.contains { $0.1["lines"]?.arrayValue?.isEmpty == false })
    }

    /// Hellos go on while paused and say why the device cannot start.
    @Test func hellosGoOnWhilePausedWithTheirReason() throws {
        var h = LiveHarness()
        h.startSession()
        h.send(.foreground(.interrupted))
        let hello = try #require(h.run(for: .seconds(30)).helloBodies.first)
        #expect(hello.1["reason"] == .string("inactive"))
        #expect(hello.2?.secretHex == LiveHarness.token)
    }

    /// Low Data Mode and Data Saver too: the paused body names them (16.4's `low_data` and
    /// `data_saver`), and it is the last thing sent — no `next`, no hello, no `ended` body —
    /// until the session resumes (docs/decisions.md).
    @Test(arguments: [(true, false, false, "low_power"), (false, true, false, "low_data"), (false, false, true, "data_saver")]
        as [(Bool, Bool, Bool, String)])
    func savingModesPauseTheSession(lowPower: Bool, lowData: Bool, dataSaver: Bool, reason: String) throws {
        var h = LiveHarness()
        h.startSession()
        let actions = h.send(.modes(lowPower: lowPower, lowData: lowData, dataSaver: dataSaver))
        #expect(actions.framesStates == ["paused"])
        #expect(actions.frames.first?.1["reason"] == .string(reason))
        guard lowData || dataSaver else { return }
        h.send(.record(record("while paused")))
        #expect(!h.run(for: .seconds(60)).sentAnything)
        #expect(h.log.sessionEnds == [.reason(.paused)])
    }

    /// A saving mode lets the paused body go only as it pauses the session: held then by a
    /// Retry-After, the body is not sent when that passes, the mode still on ("sends nothing"),
    /// but once the mode goes off, the unit meanwhile interrupted.
    @Test func underASavingModeAHeldPausedBodyWaitsForTheModeToGoOff() throws {
        var h = LiveHarness()
        h.acceptsBodies = false
        let live = try #require(h.startSession().frames.first)
        h.send(.answered(live.0, .status(202, body: [], retryAfter: nil)))
        h.advance(.seconds(5))
        let frames = try #require(h.send(.record(record("answered 503"))).frames.first)
        h.send(.answered(frames.0, .status(503, body: [], retryAfter: .seconds(2))))
        h.log.removeAll()
        h.send(.modes(lowPower: false, lowData: false, dataSaver: true))
        h.wakeAtDeadlines(for: .seconds(10))
        h.send(.foreground(.interrupted))
        h.wakeAtDeadlines(for: .seconds(10))
        #expect(!h.log.sentAnything)
        let off = h.send(.modes(lowPower: false, lowData: false, dataSaver: false))
        #expect(off.framesStates == ["paused"])
        #expect(off.frames.first?.1["reason"] == .string("inactive"))
    }

    /// "when the network allows": a paused body held by a backoff goes the moment it ends, though
    /// nothing else (a line, a reading, a hello) wakes the channel then.
    @Test(arguments: [LiveResponse.status(503, body: [], retryAfter: .seconds(2)), .failed])
    func aPausedBodyHeldByABackoffGoesWhenItEnds(_ failure: LiveResponse) throws {
        var h = LiveHarness()
        h.acceptsBodies = false
        let live = try #require(h.startSession().frames.first)
        h.send(.answered(live.0, .status(202, body: [], retryAfter: nil)))
        h.send(.record(record("answered with a failure")))
        let frames = try #require(h.advance(.seconds(1)).frames.first)
        h.send(.answered(frames.0, failure))
        let held = failure == .failed ? Duration.seconds(1) : .seconds(2)
        #expect(!h.send(.foreground(.interrupted)).sentAnything)
        #expect(!h.wakeAtDeadlines(for: held - .milliseconds(1)).sentAnything)
        let told = h.wakeAtDeadlines(for: .milliseconds(1))
        #expect(told.framesStates == ["paused"])
        #expect(told.frames.first?.1["reason"] == .string("inactive"))
    }

    /// "the session has stayed paused for 60 seconds (paused)", at the limit and one past.
    @Test func sixtySecondsPausedEndsTheSession() throws {
        var h = LiveHarness()
        h.startSession()
        h.send(.foreground(.interrupted))
        h.log.removeAll()
        h.advance(.seconds(60) - .milliseconds(1))
        #expect(h.channel.isInSession)
        let end = h.advance(.milliseconds(1))
        #expect(end.sessionEnds == [.reason(.paused)])
        #expect(end.frames.last?.1["state"] == .string("ended"))
        #expect(end.frames.last?.1["reason"] == .string("paused"))
    }

    @Test func aPauseThatEndsBeforeSixtySecondsStartsTheCountAgain() throws {
        var h = LiveHarness()
        h.startSession()
        h.send(.foreground(.interrupted))
        h.advance(.seconds(50))
        h.send(.foreground(.active))
        h.send(.foreground(.interrupted))
        h.advance(.seconds(50))
        #expect(h.channel.isInSession)
    }

    /// "the session's end comes (until) ... The device keeps that end on its own monotonic clock,
    /// next's remaining_ms after the answer arrived"
    @Test func theSessionEndsWhenRemainingTimeRunsOut() throws {
        var h = LiveHarness()
        h.startSession()
        let next = try h.openNext()
        h.send(.answered(next, nextAnswer(remainingMs: 10_000)))
        h.advance(.seconds(10) - .milliseconds(1))
        #expect(h.channel.isInSession)
        let end = h.advance(.milliseconds(1))
        #expect(end.sessionEnds == [.reason(.until)])
        #expect(end.frames.last?.1["reason"] == .string("until"))
    }

    @Test func withoutRemainingTimeTheSessionLastsThirtyMinutes() throws {
        var h = LiveHarness()
        h.startSession()
        h.run(for: .seconds(1800) - .milliseconds(1))
        #expect(h.channel.isInSession)
        h.advance(.milliseconds(1))
        #expect(!h.channel.isInSession)
        #expect(h.log.sessionEnds == [.reason(.until)])
    }

    /// A renewal may extend the session, but never past another 30 minutes at a time.
    @Test func remainingTimeIsBoundedByTheSessionLength() throws {
        var h = LiveHarness()
        h.startSession()
        let next = try h.openNext()
        h.send(.answered(next, nextAnswer(remainingMs: 365 * 86_400_000)))
        h.advance(.seconds(1800))
        #expect(!h.channel.isInSession)
    }

    @Test(arguments: ["viewers_left", "ended", "tester_removed", "something new"])
    func aStopFromNextEndsTheSession(stop: String) throws {
        var h = LiveHarness()
        h.startSession()
        let next = try h.openNext()
        let actions = h.send(.answered(next, nextAnswer(stop: stop)))
        #expect(actions.sessionEnds == [.reason(.stop)])
        #expect(actions.frames.last?.1["state"] == .string("ended"))
        #expect(actions.frames.last?.1["reason"] == .string("stop"))
        #expect(actions.contains(.viewers(0)))
        // Back to hellos while the keys hold.
        #expect(h.run(for: .seconds(30)).helloBodies.count == 1)
    }

    /// "the bodies of frames and results the live session sent, as sent, reach 10,000,000 bytes"
    @Test func theSessionEndsWhenItsBytesReachTheCap() throws {
        var limits = Limits.spec
        limits.maxSessionBytes = 2_000
        var h = LiveHarness(limits: limits)
        h.startSession()
        var ended = false
        for i in 0..<100 where !ended {
            h.send(.record(record("line \(i) " + String(repeating: "x", count: 100))))
            let actions = h.advance(.seconds(1))
            ended = actions.sessionEnds == [.reason(.sessionBytes)]
        }
        #expect(ended)
        // The count is of bodies as sent: the live one, the lines, and not past the cap by more than a body.
        let sent = h.log.frames.dropLast().map { json in
            JSONWriter.encode(json.1).count
        }
        #expect(sent.reduce(0, +) >= 2_000)
    }

    @Test func theDayCapEndsTheSessionThenHellosSayCapped() throws {
        var limits = Limits.spec
        limits.maxDayBytes = 1_500
        var h = LiveHarness(limits: limits)
        h.startSession()
        var ends: [LiveSessionEnd] = []
        for i in 0..<100 where ends.isEmpty {
            h.send(.record(record("line \(i) " + String(repeating: "y", count: 100))))
            ends = h.advance(.seconds(1)).sessionEnds
        }
        #expect(ends == [.reason(.dayBytes)])
        let hello = try #require(h.run(for: .seconds(30)).helloBodies.first)
        #expect(hello.1["reason"] == .string("capped"))
        #expect(h.log.contains { if case .saveDayBytes(let d) = $0 { return d.bytes >= 1_500 } else { return false } })
    }

    /// A count the runtime could not write would be lost to the next launch (16.3: kept "across
    /// launches, on disk"): until a write succeeds the day counts as spent. The session ends for
    /// `day_bytes`, hellos say `capped` and each asks first for the count to be written again.
    @Test func aDayCountThatCannotBeKeptSpendsTheDayUntilItIsKept() throws {
        var h = LiveHarness()
        h.startSession()
        #expect(h.send(.dayCountKept(false)).sessionEnds == [.reason(.dayBytes)])
        let retry = h.run(for: .seconds(30))
        let hello = try #require(retry.helloBodies.first)
        #expect(hello.1["reason"] == .string("capped"))
        let save = retry.firstIndex { if case .saveDayBytes = $0 { true } else { false } }
        let sent = retry.firstIndex { if case .sendHello = $0 { true } else { false } }
        #expect(try #require(save) < #require(sent), "the count is written again before the hello")
        h.send(.answered(hello.0, .status(200, json: h.helloBody(viewers: 1), retryAfter: nil)))
        #expect(!h.channel.isInSession)

        h.send(.dayCountKept(true))
        let next = try #require(h.run(for: .seconds(30)).helloBodies.first)
        #expect(next.1["reason"] == nil)
        h.send(.answered(next.0, .status(200, json: h.helloBody(viewers: 1), retryAfter: nil)))
        #expect(h.channel.isInSession)
    }

    /// "the app moves to the background (closed) ... where it sends nothing more"
    @Test func theBackgroundEndsWithoutAnEndedBody() throws {
        var h = LiveHarness()
        h.startSession()
        let actions = h.send(.foreground(.background))
        #expect(actions.frames.isEmpty)
        #expect(actions.sessionEnds == [.reason(.closed)])
    }

    @Test func theEndedBodyIsNotSentWhenTheNetworkDoesNotAllowIt() throws {
        var h = LiveHarness()
        h.startSession()
        h.send(.modes(lowPower: false, lowData: false, dataSaver: true))
        let end = h.advance(.seconds(60))
        #expect(end.sessionEnds == [.reason(.paused)])
        #expect(!end.sentAnything)
    }
}
