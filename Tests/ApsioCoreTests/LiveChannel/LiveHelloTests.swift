import ApsioCore
import Testing

/// 16.3 and 16.4: hellos, their reasons, the interval and the token.
@Suite struct LiveHelloTests {
    @Test func helloEveryIntervalWhileTheKeysHold() throws {
        var h = LiveHarness()
        var helloCount = 0
        let first = try #require(h.openChannel().helloID)
        helloCount += 1
        h.send(.answered(first, .status(200, json: h.helloBody(viewers: 0), retryAfter: nil)))
        for _ in 0..<9 {
            let actions = h.run(for: .seconds(30))
            let hello = try #require(actions.helloID)
            helloCount += 1
            h.send(.answered(hello, .status(200, json: h.helloBody(viewers: 0), retryAfter: nil)))
        }
        #expect(helloCount == 10)
        // Just before the interval, nothing; at it, a hello.
        #expect(h.advance(.seconds(30) - .milliseconds(1)).helloBodies.isEmpty)
        #expect(h.advance(.milliseconds(1)).helloBodies.count == 1)
    }

    /// A hello cancelled on its way, the channel closed a moment after it went (`allow-live off`,
    /// then `on`), may have reached the backend: the next keeps the interval from it. Found by
    /// apsio-check (a hello 2.5 s after the one before).
    @Test func aHelloCancelledInFlightCountsAsSent() throws {
        var h = LiveHarness()
        #expect(h.openChannel().helloID != nil)
        h.advance(.seconds(2))
        #expect(h.send(.allowed(false)).cancelled.count == 1)
        #expect(h.send(.allowed(true)).helloBodies.isEmpty, "not at once: the one cancelled may have arrived")
        #expect(!h.wakeAtDeadlines(for: Limits.spec.defaultHelloInterval - .seconds(2) - .milliseconds(1)).sentAnything)
        #expect(h.wakeAtDeadlines(for: .milliseconds(1)).helloBodies.count == 1)
    }

    /// "except under Low Data Mode or Data Saver, where it sends nothing"
    @Test(arguments: [(true, false), (false, true)])
    func noHelloUnderLowDataOrDataSaver(lowData: Bool, dataSaver: Bool) {
        var h = LiveHarness()
        h.send(.modes(lowPower: false, lowData: lowData, dataSaver: dataSaver))
        h.openChannel()
        h.run(for: .seconds(600))
        #expect(!h.log.sentAnything)
    }

    @Test func helloSaysInactiveWhenInterrupted() throws {
        var h = LiveHarness()
        h.send(.foreground(.interrupted))
        h.send(.identity(LiveHarness.identity))
        h.send(.consent(true))
        h.send(.tester(LiveHarness.proof))
        let hello = try #require(h.send(.allowed(true)).helloBodies.first)
        #expect(hello.1["reason"] == .string("inactive"))
        // Answered with viewers, a hello sent with a reason starts nothing.
        let actions = h.send(.answered(hello.0, .status(200, json: h.helloBody(viewers: 3), retryAfter: nil)))
        #expect(actions.frames.isEmpty && !h.channel.isInSession)
    }

    @Test func helloSaysLowPower() throws {
        var h = LiveHarness()
        h.send(.modes(lowPower: true, lowData: false, dataSaver: false))
        let hello = try #require(h.openChannel().helloBodies.first)
        #expect(hello.1["reason"] == .string("low_power"))
    }

    /// "once the day's bytes reach the cap, the device MUST NOT start a live session until the UTC
    /// day ends, and says so with reason capped. It MUST keep the day's count across launches."
    @Test func aSpentDayKeptFromTheLastLaunchSaysCapped() throws {
        let today = LiveHarness().now.utcDay
        var h = LiveHarness(dayBytes: DayBytes(day: today, bytes: 50_000_000))
        let hello = try #require(h.openChannel().helloBodies.first)
        #expect(hello.1["reason"] == .string("capped"))
        h.send(.answered(hello.0, .status(200, json: h.helloBody(viewers: 1), retryAfter: nil)))
        #expect(!h.channel.isInSession)
    }

    @Test func oneByteUnderTheDayCapStillStarts() throws {
        let today = LiveHarness().now.utcDay
        var h = LiveHarness(dayBytes: DayBytes(day: today, bytes: 49_999_999))
        let hello = try #require(h.openChannel().helloBodies.first)
        #expect(hello.1["reason"] == nil)
    }

    @Test func theCapLiftsWhenTheUTCDayEnds() throws {
        let today = LiveHarness().now.utcDay
        var h = LiveHarness(dayBytes: DayBytes(day: today, bytes: 50_000_000))
        // Ten seconds before midnight UTC: the next hello goes in the new day.
        h.now.wallUnixMs = (today + 1) * 86_400_000 - 10_000
        let first = try #require(h.openChannel().helloBodies.first)
        #expect(first.1["reason"] == .string("capped"))
        h.send(.answered(first.0, .status(200, json: h.helloBody(viewers: 0), retryAfter: nil)))
        let next = try #require(h.run(for: .seconds(30)).helloBodies.first)
        #expect(next.1["reason"] == nil)
    }

    @Test(arguments: [(nil, 30), (14.0, 15), (15.0, 15), (120.0, 120), (121.0, 120)] as [(Double?, Int64)])
    func theIntervalComesFromTheAnswerWithinBounds(given: Double?, used: Int64) throws {
        var h = LiveHarness()
        let hello = try #require(h.openChannel().helloID)
        h.send(.answered(hello, .status(200, json: h.helloBody(viewers: 0, interval: given), retryAfter: nil)))
        #expect(h.channel.interval == .seconds(used))
        #expect(h.advance(.seconds(used) - .milliseconds(1)).helloBodies.isEmpty)
        #expect(h.advance(.milliseconds(1)).helloBodies.count == 1)
    }

    /// "the SDK MUST send it on every hello while it holds one"
    @Test func everyHelloCarriesTheTokenItHolds() throws {
        var h = LiveHarness()
        let hello = try #require(h.openChannel().helloID)
        h.send(.answered(hello, .status(200, json: h.helloBody(viewers: 0), retryAfter: nil)))
        let second = try #require(h.run(for: .seconds(30)).helloBodies.first)
        #expect(second.2?.secretHex == LiveHarness.token)
    }

    @Test(arguments: [String(repeating: "A1", count: 32), String(repeating: "a", count: 63), "", "zz"])
    func aTokenOfAnyOtherShapeIsNotKept(_ bad: String) throws {
        var h = LiveHarness()
        let hello = try #require(h.openChannel().helloID)
        h.send(.answered(hello, .status(200, json: h.helloBody(viewers: 1, token: bad), retryAfter: nil)))
        #expect(!h.channel.holdsToken)
        // Without a token nothing can be sent on the session: none starts.
        #expect(!h.channel.isInSession)
    }

    /// "A hello answered 401 ... the channel stays closed until the next launch."
    @Test func helloAnswered401ClosesTheChannelForThisLaunch() throws {
        var h = LiveHarness()
        let hello = try #require(h.openChannel().helloID)
        h.send(.answered(hello, .status(401, body: [], retryAfter: nil)))
        h.log.removeAll()
        h.send(.allowed(false))
        h.send(.allowed(true))
        h.run(for: .seconds(3600))
        #expect(!h.log.sentAnything)
        #expect(h.channel.state == .closed)
    }

    @Test(arguments: [402, 403])
    func refusedHellosPauseAnHourWithoutRetryAfter(code: Int) throws {
        var h = LiveHarness()
        let hello = try #require(h.openChannel().helloID)
        h.send(.answered(hello, .status(code, body: [], retryAfter: nil)))
        #expect(h.run(for: .seconds(3600) - .milliseconds(1)).helloBodies.isEmpty)
        #expect(h.advance(.milliseconds(1)).helloBodies.count == 1)
    }

    /// "the next hello goes after Retry-After, at least interval_s later, backing off exponentially
    /// to 120 seconds while it keeps failing"
    @Test func failedHellosBackOffExponentiallyTo120Seconds() throws {
        var h = LiveHarness()
        var hello = try #require(h.openChannel().helloID)
        var waits: [Duration] = []
        for _ in 0..<5 {
            let sentAt = h.now.mono
            h.send(.answered(hello, .status(503, body: [], retryAfter: nil)))
            var next: LiveRequestID?
            while next == nil {
                let deadline = try #require(h.channel.nextDeadline)
                h.now = h.now.advanced(by: deadline - h.now.mono)
                next = h.send(.tick).helloID
            }
            waits.append(h.now.mono - sentAt)
            hello = next!
        }
        #expect(waits == [.seconds(30), .seconds(60), .seconds(120), .seconds(120), .seconds(120)])
    }

    /// The policy's `interval_s` is the interval until a hello answer names one: a failed first
    /// hello waits it, not the default.
    @Test func thePolicysIntervalHoldsUntilAHelloAnswerNamesOne() throws {
        var h = LiveHarness()
        h.send(.policyInterval(.seconds(60)))
        let hello = try #require(h.openChannel().helloID)
        h.send(.answered(hello, .status(503, body: [], retryAfter: nil)))
        #expect(h.run(for: .seconds(60) - .milliseconds(1)).helloBodies.isEmpty)
        let next = try #require(h.advance(.milliseconds(1)).helloID)
        h.send(.answered(next, .status(200, json: h.helloBody(viewers: 0, interval: 20), retryAfter: nil)))
        #expect(h.channel.interval == .seconds(20), "the answer's interval wins from then on")
    }

    /// The hello interval is the last hello answer's: a policy fetched again (every refresh, every
    /// `apsioctl reload`) does not put the policy's back.
    @Test func aPolicyChangeDoesNotResetTheAnswersInterval() throws {
        var h = LiveHarness()
        h.send(.policyInterval(.seconds(60)))
        let hello = try #require(h.openChannel().helloID)
        h.send(.answered(hello, .status(200, json: h.helloBody(viewers: 0, interval: 20), retryAfter: nil)))
        h.send(.policyInterval(.seconds(60)))
        #expect(h.channel.interval == .seconds(20))
        #expect(h.run(for: .seconds(20)).helloBodies.count == 1, "the next hello goes at the answer's interval")
    }

    @Test(arguments: [LiveResponse.status(429, body: [], retryAfter: .seconds(90)), .status(302, body: [], retryAfter: .seconds(90))])
    func retryAfterIsHonouredOnHellos(_ response: LiveResponse) throws {
        var h = LiveHarness()
        let hello = try #require(h.openChannel().helloID)
        h.send(.answered(hello, response))
        #expect(h.run(for: .seconds(90) - .milliseconds(1)).helloBodies.isEmpty)
        #expect(h.advance(.milliseconds(1)).helloBodies.count == 1)
    }

    @Test func aRetryAfterShorterThanTheIntervalWaitsTheInterval() throws {
        var h = LiveHarness()
        let hello = try #require(h.openChannel().helloID)
        h.send(.answered(hello, .status(503, body: [], retryAfter: .seconds(1))))
        #expect(h.run(for: .seconds(30) - .milliseconds(1)).helloBodies.isEmpty)
        #expect(h.advance(.milliseconds(1)).helloBodies.count == 1)
    }

    @Test func aNetworkFailureBacksOffLikeA5xx() throws {
        var h = LiveHarness()
        let hello = try #require(h.openChannel().helloID)
        h.send(.answered(hello, .failed))
        #expect(h.run(for: .seconds(30) - .milliseconds(1)).helloBodies.isEmpty)
        #expect(h.advance(.milliseconds(1)).helloBodies.count == 1)
    }
}
