import ApsioCore
import Testing

/// 16.4 "On 429, 5xx or 3xx: the next hello goes after Retry-After, at least interval_s later,
/// backing off exponentially to 120 seconds while it keeps failing; during a live session, the
/// device pauses next and frames until Retry-After." The moment the backend names is the
/// channel's: whichever request was told, nothing goes before it, and the session ending does not
/// forget it.
@Suite struct LiveBackoffTests {
    static let retryAfter: Duration = .seconds(40)
    static let busy = LiveResponse.status(503, body: [], retryAfter: retryAfter)
    static let accepted = LiveResponse.status(202, body: [], retryAfter: nil)

    enum Told: CaseIterable, Sendable { case frames, next, results, hello }

    /// A session five seconds old, whose `live` body was accepted, its `next` open; bodies are
    /// answered by the test. Five seconds: neither the upload spacing nor `next`'s holds back
    /// what the test sends.
    static func session() throws -> (LiveHarness, next: LiveRequestID) {
        var h = LiveHarness()
        h.acceptsBodies = false
        let live = try #require(h.startSession().frames.first)
        h.send(.answered(live.0, accepted))
        h.advance(.seconds(5))
        return (h, try h.openNext())
    }

    /// Told to any of the four, the device holds all four: a line to stream, a command's result
    /// and a hello falling due all wait for the moment, then go.
    @Test(arguments: Told.allCases)
    func aRetryAfterHoldsEveryRequestWhicheverWasTold(_ told: Told) throws {
        var (h, next) = try Self.session()
        var nextStillOpen = true
        switch told {
        case .frames:
            let frames = try #require(h.send(.record(record("answered 503"))).frames.first)
            h.send(.answered(frames.0, Self.busy))
        case .next:
            h.send(.answered(next, Self.busy))
            nextStillOpen = false
        case .results:
            // An unknown command: refused at once, and its result goes.
            let served = h.send(.answered(next, nextAnswer(commands: [("c1", "reboot")])))
            let result = try #require(served.results.first)
            next = try #require(served.nextIDs.first)
            h.send(.answered(result.0, Self.busy))
        case .hello:
            let hello = try #require(h.run(for: .seconds(30)).helloID)
            h.send(.answered(hello, Self.busy))
        }
        h.log.removeAll()
        h.send(.record(record("written during the hold")))
        if told != .next && told != .results {
            h.send(.answered(next, nextAnswer(commands: [("c2", "reboot")])))
            nextStillOpen = false
        }

        let during = h.wakeAtDeadlines(for: Self.retryAfter - .milliseconds(1))
        #expect(!during.sentAnything, "\(during)")
        let after = h.wakeAtDeadlines(for: .milliseconds(1))
        #expect(after.frames.flatMap { $0.1["lines"]?.arrayValue ?? [] }.last?["body"] == .string("written during the hold"))
        #expect(after.results.count == (told == .next ? 0 : 1), "the result waiting, or the one told, once more")
        #expect(after.nextIDs.count == (nextStillOpen ? 0 : 1))
        #expect(after.helloBodies.count == 1)
    }

    /// "the client backs off": a session that ends during the hold goes back to hellos, and the
    /// first waits for the moment the backend named.
    @Test func theHoldOutlivesTheSession() throws {
        var (h, next) = try Self.session()
        let frames = try #require(h.send(.record(record("answered 503"))).frames.first)
        h.send(.answered(frames.0, .status(503, body: [], retryAfter: .seconds(90))))
        let end = h.send(.answered(next, nextAnswer(stop: "viewers_left")))
        #expect(end.sessionEnds == [.reason(.stop)])
        #expect(!end.sentAnything, "no ended body while held")
        #expect(!h.wakeAtDeadlines(for: .seconds(90) - .milliseconds(1)).sentAnything)
        #expect(h.wakeAtDeadlines(for: .milliseconds(1)).helloBodies.count == 1)
    }

    /// Turning allow-live off and on, or a unit that flaps, does not make the device forget it.
    @Test func theHoldOutlivesTheChannelClosingAndOpening() throws {
        var (h, _) = try Self.session()
        let frames = try #require(h.send(.record(record("answered 503"))).frames.first)
        h.send(.answered(frames.0, .status(429, body: [], retryAfter: .seconds(90))))
        h.send(.allowed(false))
        h.log.removeAll()
        h.send(.allowed(true))
        #expect(!h.wakeAtDeadlines(for: .seconds(90) - .milliseconds(1)).sentAnything)
        #expect(h.wakeAtDeadlines(for: .milliseconds(1)).helloBodies.count == 1)
    }

    /// Another backend did not name the moment: its first hello goes at once.
    @Test func anotherOriginForgetsTheHold() throws {
        var (h, _) = try Self.session()
        let frames = try #require(h.send(.record(record("answered 503"))).frames.first)
        h.send(.answered(frames.0, .status(503, body: [], retryAfter: .seconds(3600))))
        #expect(h.send(.originChanged).helloBodies.count == 1)
    }

    /// The moment is told to the daemon (what `apsioctl status` shows) in wall time, when it is
    /// named or moved later, not when an earlier one comes; another origin forgets it.
    @Test func theHoldIsToldOnlyWhenItMoves() throws {
        var (h, next) = try Self.session()
        let frames = try #require(h.send(.record(record("answered 503"))).frames.first)
        let named = h.send(.answered(frames.0, .status(503, body: [], retryAfter: .seconds(60))))
        #expect(named.holds == [h.now.wallUnixMs + 60_000])
        #expect(h.send(.answered(next, .status(503, body: [], retryAfter: .seconds(5)))).holds.isEmpty)
        h.advance(.seconds(10))
        #expect(h.send(.originChanged).holds == [nil])
    }

    /// A later answer naming an earlier moment (a slow request of before) does not bring it forward.
    @Test func aShorterRetryAfterDoesNotBringTheHoldForward() throws {
        var (h, next) = try Self.session()
        let frames = try #require(h.send(.record(record("answered 503"))).frames.first)
        h.send(.answered(frames.0, .status(503, body: [], retryAfter: .seconds(60))))
        h.send(.answered(next, .status(503, body: [], retryAfter: .seconds(5))))
        h.log.removeAll()
        #expect(!h.wakeAtDeadlines(for: .seconds(60) - .milliseconds(1)).sentAnything)
        #expect(h.wakeAtDeadlines(for: .milliseconds(1)).nextIDs.count == 1)
    }

    /// 402 and 403 on `frames` mean what they mean on ingest: sending pauses for Retry-After, an
    /// hour without one — hellos included, and past the session's end.
    @Test(arguments: [402, 403])
    func aRefusalOnFramesHoldsHellosForAnHour(code: Int) throws {
        var (h, _) = try Self.session()
        let frames = try #require(h.send(.record(record("refused"))).frames.first)
        h.send(.answered(frames.0, .status(code, body: [], retryAfter: nil)))
        h.log.removeAll()
        #expect(!h.wakeAtDeadlines(for: .seconds(3600) - .milliseconds(1)).sentAnything)
        #expect(h.wakeAtDeadlines(for: .milliseconds(1)).helloBodies.count == 1)
    }

    /// Without a Retry-After, a failed `results` is the device's to back off from, as a failed
    /// `next` or `frames` is: the session pauses 1 s, then the result goes once more with the rest.
    @Test func aFailedResultWithoutRetryAfterPausesTheSessionOneSecond() throws {
        var (h, next) = try Self.session()
        let served = h.send(.answered(next, nextAnswer(commands: [("c1", "reboot")])))
        let result = try #require(served.results.first)
        h.send(.answered(result.0, .failed))
        h.log.removeAll()
        h.send(.record(record("after the failure")))
        #expect(!h.wakeAtDeadlines(for: .seconds(1) - .milliseconds(1)).sentAnything)
        let after = h.wakeAtDeadlines(for: .milliseconds(1))
        #expect(after.results.map(\.1) == [result.1])
        #expect(after.frames.count == 1)
    }

    /// A hello's own failures back off exponentially to 120 s, at least `interval_s`; a longer
    /// Retry-After wins, and does not reset the count.
    @Test func failingHellosBackOffExponentiallyTo120SecondsOrTheirRetryAfter() throws {
        var h = LiveHarness()
        var hello = try #require(h.openChannel().helloID)
        var waits: [Duration] = []
        for retryAfter in [nil, nil, Duration.seconds(200), nil, nil] as [Duration?] {
            let answeredAt = h.now.mono
            h.send(.answered(hello, .status(503, body: [], retryAfter: retryAfter)))
            let deadline = try #require(h.channel.nextDeadline)
            h.now = h.now.advanced(by: deadline - h.now.mono)
            hello = try #require(h.send(.tick).helloID)
            waits.append(h.now.mono - answeredAt)
        }
        #expect(waits == [.seconds(30), .seconds(60), .seconds(200), .seconds(120), .seconds(120)])
    }
}
