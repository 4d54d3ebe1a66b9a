@testable import ApsioBackend
import ApsioCore
import Testing

/// 16.3, 16.4 and 16.7: how live sessions start, run and end on the backend.
@Suite struct HubSessionTests {
    /// "A hello answered with viewers, and sent with no reason, starts a live session"
    @Test func aHelloWithViewersAndNoReasonStartsASession() throws {
        var h = HubHarness()
        let token = try h.presentToken()
        #expect(!h.hub.isInSession(h.key))
        _ = h.watch()
        let reply = h.hello(token: token)
        #expect(json(reply)["viewers"]?.numberValue == 1)
        #expect(h.hub.isInSession(h.key))
        #expect(h.events().ofType("session_started").count == 1)
    }

    @Test(arguments: ["inactive", "low_power", "capped"])
    func aHelloWithAReasonStartsNothing(_ reason: String) throws {
        var h = HubHarness()
        let token = try h.presentToken()
        _ = h.watch()
        let reply = h.hello(token: token, reason: reason)
        #expect(json(reply)["viewers"]?.numberValue == 1)
        #expect(!h.hub.isInSession(h.key))
    }

    /// "During a live session such a hello only renews the presence: it neither starts nor ends a session"
    @Test func aHelloDuringASessionOnlyRenews() throws {
        var h = HubHarness()
        let token = try h.startSession()
        _ = h.frames(token)
        _ = h.hello(token: token, reason: "inactive")
        _ = h.hello(token: token)
        #expect(h.hub.isInSession(h.key))
        #expect(h.events().ofType("session_started").count == 1)
    }

    /// "until (for the viewers) and remaining_ms ... are null until the session's first frames"
    @Test func untilAndRemainingAreNullUntilTheFirstFrames() throws {
        var h = HubHarness()
        let token = try h.startSession()
        _ = h.command("diagnostics")
        let before = json(try #require(h.next(token).reply))
        #expect(before["until"] == .null && before["remaining_ms"] == .null)
        #expect(before["viewers"]?.numberValue == 1 && before["stop"] == .null)

        h.advance(.seconds(2))
        _ = h.frames(token)
        _ = h.command("screenshot")
        let after = json(try #require(h.next(token).reply))
        #expect(after["until"]?.numberValue == Double(h.now.wallUnixMs + 1_800_000))
        #expect(after["remaining_ms"]?.numberValue == 1_800_000)

        h.stayLive(token, for: .seconds(600))
        _ = h.command("raise_log_level")
        let later = json(try #require(h.next(token).reply))
        #expect(later["remaining_ms"]?.numberValue == 1_200_000)
        #expect(later["until"] == after["until"])
    }

    /// "30 minutes after its first frames, unless a viewer renews it": renewing sets 30 minutes
    /// from the renewal, and the device's held next hears it at once.
    @Test func aViewerRenewsTheSession() throws {
        var h = HubHarness()
        let token = try h.startSession()
        _ = h.frames(token)
        h.stayLive(token, for: .seconds(20 * 60))
        let held = try #require(h.next(token).hold)
        let renewal = h.watch()
        #expect(renewal.status == 200)
        let answer = json(try #require(h.releasedReply(held)))
        #expect(answer["remaining_ms"]?.numberValue == 1_800_000)
        #expect(answer["until"]?.numberValue == Double(h.now.wallUnixMs + 1_800_000))
        #expect(h.events().ofType("renewed").count == 1)
    }

    /// "stop is viewers_left ... when the session must end now"
    @Test func theLastViewerLeavingStopsTheSession() throws {
        var h = HubHarness()
        let first = try h.presentToken()
        _ = h.watch(HubHarness.admin)
        _ = h.watch(HubHarness.watcher)
        let current = try h.presentToken(token: first)
        #expect(h.hub.isInSession(h.key))
        _ = h.frames(current)
        let held = try #require(h.next(current).hold)
        _ = h.leave(HubHarness.watcher)
        #expect(h.releasedReply(held) == nil, "one viewer still watches")
        _ = h.leave(HubHarness.admin)
        let answer = json(try #require(h.releasedReply(held)))
        #expect(answer["stop"]?.stringValue == "viewers_left")
        #expect(answer["viewers"]?.numberValue == 0)
        #expect(!h.hub.isInSession(h.key))
        // A late next hears the same stop.
        #expect(json(try #require(h.next(current).reply))["stop"]?.stringValue == "viewers_left")
    }

    /// "MUST, when a hello replaces the device token while a live session runs (from its first
    /// frames on), end that session for its viewers with the reason replaced"
    @Test func replacingTheTokenAfterTheFirstFramesEndsTheSessionAsReplaced() throws {
        var h = HubHarness()
        let token = try h.startSession()
        _ = h.frames(token, lines: ["before the takeover"])
        let held = try #require(h.next(token).hold)
        let newToken = try h.presentToken()
        #expect(newToken != token)
        #expect(h.releasedReply(held)?.status == 401)
        let ended = h.events().ofType("session_ended")
        #expect(ended.count == 1 && ended.first?["reason"]?.stringValue == "replaced")
        // The next session starts as any other, with its own clock.
        #expect(h.hub.isInSession(h.key))
        _ = h.command("screenshot")
        let next = json(try #require(h.next(newToken).reply))
        #expect(next["until"] == .null)
    }

    /// "A token replaced before any frames used it (a hello retried after a lost answer) ends nothing."
    @Test func replacingTheTokenBeforeAnyFramesEndsNothing() throws {
        var h = HubHarness()
        let token = try h.startSession()
        let retried = try h.presentToken()
        #expect(retried != token)
        #expect(h.hub.isInSession(h.key))
        #expect(h.events().ofType("session_ended").isEmpty)
        #expect(h.frames(retried).status == 200)
    }

    /// "A backend treats a live session with no frames and no next for 60 seconds as ended."
    @Test func sixtySecondsOfSilenceEndTheSession() throws {
        var h = HubHarness()
        let token = try h.startSession()
        _ = h.frames(token)
        h.advance(.seconds(59))
        #expect(h.hub.isInSession(h.key))
        _ = h.frames(token)
        h.advance(.seconds(59))
        #expect(h.hub.isInSession(h.key))
        h.advance(.seconds(1))
        #expect(!h.hub.isInSession(h.key))
        #expect(h.events().ofType("session_ended").first?["reason"]?.stringValue == "silent")
    }

    /// A hello keeps the presence but is not activity of the session.
    @Test func hellosDoNotKeepASilentSessionAlive() throws {
        var h = HubHarness()
        let token = try h.startSession()
        _ = h.frames(token)
        h.advance(.seconds(30))
        _ = h.hello(token: token)
        h.advance(.seconds(30))
        #expect(!h.hub.isInSession(h.key))
    }

    /// "after a session ends at until or session_bytes, the backend MUST answer hellos with
    /// viewers 0 until a viewer starts a new session or renews it"
    @Test func afterUntilHellosSayNoViewersUntilAViewerActs() throws {
        var h = HubHarness()
        let token = try h.startSession()
        _ = h.frames(token)
        for _ in 0..<36 {
            h.advance(.seconds(50))
            _ = h.frames(token)
        }
        #expect(!h.hub.isInSession(h.key))
        let afterEnd = h.hello(token: token)
        #expect(json(afterEnd)["viewers"]?.numberValue == 0)
        #expect(!h.hub.isInSession(h.key))
        #expect(h.hub.viewerCount(h.key) == 1, "the viewer is still there, it just did not act")

        _ = h.watch()
        let again = h.hello(token: token)
        #expect(json(again)["viewers"]?.numberValue == 1)
        #expect(h.hub.isInSession(h.key))
    }

    @Test func afterSessionBytesHellosSayNoViewersUntilAViewerActs() throws {
        var h = HubHarness()
        let token = try h.startSession()
        _ = h.frames(token, wireBytes: 9_999_999)
        #expect(h.hub.isInSession(h.key))
        let held = try #require(h.next(token).hold)
        _ = h.frames(token, wireBytes: 1)
        #expect(!h.hub.isInSession(h.key))
        #expect(json(try #require(h.releasedReply(held)))["stop"]?.stringValue == "ended")
        #expect(h.events().ofType("session_ended").first?["reason"]?.stringValue == "session_bytes")
        #expect(json(h.hello(token: token))["viewers"]?.numberValue == 0)
        _ = h.watch(HubHarness.watcher)
        #expect(json(h.hello(token: token))["viewers"]?.numberValue == 2)
    }

    /// The device says so itself, too: an `ended` frames body at `until` sets the same rule.
    @Test func aDeviceEndingAtUntilAlsoHoldsTheViewersBack() throws {
        var h = HubHarness()
        let token = try h.startSession()
        _ = h.frames(token)
        _ = h.frames(token, state: "ended", reason: "until")
        #expect(!h.hub.isInSession(h.key))
        #expect(json(h.hello(token: token))["viewers"]?.numberValue == 0)
    }

    @Test func otherEndsDoNotHoldTheViewersBack() throws {
        var h = HubHarness()
        let token = try h.startSession()
        _ = h.frames(token)
        _ = h.frames(token, state: "ended", reason: "paused")
        #expect(json(h.hello(token: token))["viewers"]?.numberValue == 1)
        #expect(h.hub.isInSession(h.key))
    }

    /// "MUST NOT store the live stream: the lines, metrics and wireframes of frames, and a
    /// screenshot, go to the viewers watching and stay in memory only, gone when the live session ends."
    @Test func theLiveStreamIsGoneWhenTheSessionEnds() throws {
        var h = HubHarness()
        let token = try h.startSession()
        _ = h.frames(token, lines: ["card number typed at 10:42"])
        _ = h.command("screenshot")
        let commandID = try h.firstCommandID(token)
        #expect(h.results(token, id: commandID, name: "screenshot").status == 200)
        // The rules keep none of it: it leaves with the step's events, marked as the session's
        // live data, which the stream the viewers poll drops at the session's end
        // (`FleetStreamRing`, and FleetInProcessTests from the outside).
        #expect(!h.dump.contains("card number typed at 10:42"))
        let live = h.events().filter { $0["type"] == .string("frames") || $0["type"] == .string("result") }
        #expect(live.count == 2)

        let atTheEnd = h.emitted.count
        _ = h.frames(token, state: "ended", reason: "closed")
        #expect(!h.dump.contains("card number typed at 10:42"))
        #expect(h.events(from: atTheEnd).ofType("session_ended").first?["reason"]?.stringValue == "closed")
    }

    /// Frames and results are marked as their session's live data, and nothing else is, so that
    /// the end of the session takes exactly them from the viewers' stream.
    @Test func onlyFramesAndResultsAreMarkedAsTheSessionsLiveData() throws {
        var h = HubHarness()
        let token = try h.startSession()
        let start = h.emitted.count
        _ = h.frames(token, lines: ["one"])
        _ = h.command("screenshot")
        let commandID = try h.firstCommandID(token)
        _ = h.results(token, id: commandID, name: "screenshot")
        _ = h.frames(token, state: "ended", reason: "closed")
        let events = h.emitted[start...]
        #expect(events.map(\.type).contains("session_ended"))
        // The last frames (state `ended`) are the session's too.
        #expect(events.filter { $0.liveDataOfSession != nil }.map(\.type) == ["frames", "result", "frames"])
        #expect(Set(events.compactMap(\.liveDataOfSession)).count == 1)
    }

    @Test func framesCarryLinesToTheViewersInOrder() throws {
        var h = HubHarness()
        let token = try h.startSession()
        _ = h.watch(HubHarness.watcher)
        _ = h.frames(token, lines: ["one"])
        _ = h.frames(token, state: "paused", reason: "low_power", lines: ["two"])
        let frames = h.events().ofType("frames")
        #expect(frames.compactMap { $0["frames"]?["lines"]?.arrayValue?.first?["body"]?.stringValue } == ["one", "two"])
        #expect(frames.last?["frames"]?["reason"]?.stringValue == "low_power")
    }

    @Test func framesWithTooManyLinesIs400() throws {
        var h = HubHarness()
        let token = try h.startSession()
        #expect(h.frames(token, lines: Array(repeating: "x", count: 200)).status == 200)
        #expect(h.frames(token, lines: Array(repeating: "x", count: 201)).status == 400)
        #expect(h.frames(token, state: "sleeping").status == 400)
    }

    /// A viewer who stops polling has left: a closed browser tab ends the session like a leave.
    @Test func aViewerWhoStopsPollingLeaves() throws {
        var h = HubHarness(backendLimits: .default)
        let token = try h.startSession()
        _ = h.frames(token)
        h.advance(.seconds(40))
        #expect(h.hub.viewerCount(h.key) == 1)
        let held = try #require(h.next(token).hold)
        h.advance(.seconds(20))
        #expect(h.hub.viewerCount(h.key) == 0)
        #expect(json(try #require(h.releasedReply(held)))["stop"]?.stringValue == "viewers_left")
    }

    @Test func aViewerWhoPollsStays() throws {
        var h = HubHarness(backendLimits: .default)
        let token = try h.startSession()
        _ = h.frames(token)
        h.advance(.seconds(40))
        #expect(h.poll() == nil)
        _ = h.frames(token)
        h.advance(.seconds(40))
        #expect(h.hub.viewerCount(h.key) == 1)
        #expect(h.hub.isInSession(h.key))
    }

    @Test func aPollFromSomeoneNotWatchingIsRefused() throws {
        var h = HubHarness()
        _ = try h.startSession()
        #expect(h.poll(HubHarness.watcher).map(json)?["error"] == .string("not_watching"))
        #expect(h.hub.viewerCount(h.key) == 1)
    }

    @Test func onlyATestersPresentDeviceCanBeWatched() {
        var h = HubHarness()
        #expect(h.watch().status == 404)
        _ = h.hello(proof: String(repeating: "0", count: 64))
        #expect(h.watch().status == 404)
    }
}

/// `GET /api/devices/{install}/watch`: what a page asks when it opens or reloads.
@Suite struct HubWatchStateTests {
    @Test func askingWhetherOneWatchesJoinsNothingAndRenewsNothing() throws {
        var h = HubHarness()
        let token = try h.presentToken()
        let before = json(h.hub.watchState(HubHarness.admin, app: nil, install: HubHarness.install, now: h.now))
        #expect(before["watching"] == .bool(false) && before["viewers"]?.numberValue == 0)
        #expect(h.hub.viewerCount(h.key) == 0)

        _ = h.watch()
        _ = h.hello(token: token)
        _ = h.frames(token)
        let until = json(h.watch(HubHarness.watcher))["session"]?["until"]
        h.stayLive(token, for: .seconds(600))
        let state = json(h.hub.watchState(HubHarness.admin, app: nil, install: HubHarness.install, now: h.now))
        #expect(state["watching"] == .bool(true) && state["viewers"]?.numberValue == 2)
        #expect(state["session"]?["until"] == until, "asking is not renewing")
        #expect(state["session"]?["remaining_ms"]?.numberValue == 1_200_000)
        #expect(h.events().ofType("renewed").isEmpty)
    }

    @Test func aDeviceThatIsNotPresentIs404() {
        var h = HubHarness()
        let reply = h.hub.watchState(HubHarness.admin, app: nil, install: HubHarness.install, now: h.now)
        #expect(reply.status == 404 && json(reply)["error"] == .string("no_device"))
    }
}
