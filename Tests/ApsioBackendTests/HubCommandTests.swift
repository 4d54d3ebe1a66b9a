import ApsioBackend
import ApsioCore
import ApsioJSON
import Testing

/// 16.4 `next` and `results`, 16.6 commands and 16.7 who may send them.
@Suite struct HubCommandTests {
    /// "The backend holds it up to 25 seconds, then answers 204"
    @Test func nextIsHeld25SecondsThenAnswered204() throws {
        var h = HubHarness()
        let token = try h.startSession()
        _ = h.frames(token)
        let held = try #require(h.next(token).hold)
        h.advance(.milliseconds(24_999))
        #expect(h.releasedReply(held) == nil)
        #expect(h.hub.heldRequestCount == 1)
        h.advance(.milliseconds(1))
        #expect(h.releasedReply(held) == HubReply.noContent)
        #expect(h.hub.heldRequestCount == 0)
    }

    @Test func theHubSaysWhenTheHoldEnds() throws {
        var h = HubHarness()
        let token = try h.startSession()
        _ = h.frames(token)
        _ = h.next(token)
        #expect(h.hub.nextDeadline == h.now.mono + .seconds(25))
    }

    /// "one at a time": a second `next` ends the first.
    @Test func aSecondNextAnswersTheFirst() throws {
        var h = HubHarness()
        let token = try h.startSession()
        let first = try #require(h.next(token).hold)
        let second = try #require(h.next(token).hold)
        #expect(h.releasedReply(first) == HubReply.noContent)
        #expect(h.releasedReply(second) == nil)
    }

    @Test func aCommandReleasesTheHeldNext() throws {
        var h = HubHarness()
        let token = try h.startSession()
        _ = h.frames(token)
        let held = try #require(h.next(token).hold)
        let sent = h.command("screenshot")
        #expect(sent.status == 202)
        let id = try #require(json(sent)["id"]?.stringValue)
        let answer = json(try #require(h.releasedReply(held)))
        let commands = try #require(answer["commands"]?.arrayValue)
        #expect(commands == [.object(["id": .string(id), "name": .string("screenshot"), "args": .object([:])])])
        #expect(answer["stop"] == .null)
        #expect(answer["viewers"]?.numberValue == 1)
    }

    @Test func theResultGoesToTheViewers() throws {
        var h = HubHarness()
        let token = try h.startSession()
        _ = h.command("raise_log_level")
        let next = json(try #require(h.next(token).reply))
        let id = try #require(next["commands"]?.arrayValue?.first?["id"]?.stringValue)
        #expect(h.results(token, id: id, name: "raise_log_level").status == 200)
        let result = try #require(h.events().ofType("result").first?["result"])
        #expect(result["id"]?.stringValue == id && result["outcome"]?.stringValue == "done")
        #expect(result["result"]?["until"]?.numberValue == 1)
        // Sent once more after a lost answer: accepted, not delivered twice.
        #expect(h.results(token, id: id, name: "raise_log_level").status == 200)
        #expect(h.events().ofType("result").count == 1)
    }

    /// "MUST accept commands only from people it allows to change the project's settings"
    @Test func onlyPeopleWhoMayChangeSettingsSendCommands() throws {
        var h = HubHarness()
        _ = try h.startSession(viewer: HubHarness.watcher)
        let refused = h.command("screenshot", by: HubHarness.watcher)
        #expect(refused.status == 403)
        #expect(h.events().ofType("command").isEmpty)
    }

    /// "... and only for a device in a live session."
    @Test func commandsNeedALiveSession() throws {
        var h = HubHarness()
        let token = try h.presentToken()
        _ = h.watch()
        _ = h.hello(token: token, reason: "inactive")
        #expect(h.command("screenshot").status == 409)
    }

    @Test(arguments: ["reboot", "", "SCREENSHOT"])
    func unknownCommandsAre400(_ name: String) throws {
        var h = HubHarness()
        _ = try h.startSession()
        #expect(h.command(name).status == 400)
    }

    @Test func commandsWithArgumentsAre400() throws {
        var h = HubHarness()
        _ = try h.startSession()
        let body = JSONWriter.encode(.object(["name": .string("screenshot"), "args": .object(["x": .number(1)])]))
        #expect(h.hub.command(HubHarness.admin, app: nil, install: HubHarness.install, body: body, now: h.now).status == 400)
    }

    /// "409 for a result whose id and name are not a command sent to that device in the last 2
    /// minutes, which is delivered nowhere"
    @Test func aResultForNoCommandIs409() throws {
        var h = HubHarness()
        let token = try h.startSession()
        _ = h.command("screenshot")
        let id = try h.firstCommandID(token)
        #expect(h.results(token, id: "made-up", name: "screenshot").status == 409)
        #expect(h.results(token, id: id, name: "diagnostics").status == 409)
        #expect(h.events().ofType("result").isEmpty)
    }

    @Test func aResultPastTwoMinutesIs409() throws {
        var h = HubHarness()
        let token = try h.startSession()
        _ = h.command("diagnostics")
        let id = try h.firstCommandID(token)
        for _ in 0..<4 {
            h.advance(.seconds(30))
            _ = h.frames(token)
        }
        h.advance(.seconds(1))
        #expect(h.results(token, id: id, name: "diagnostics").status == 409)
        #expect(h.events().ofType("result").isEmpty)
    }

    @Test func aResultWithinTwoMinutesIsAccepted() throws {
        var h = HubHarness()
        let token = try h.startSession()
        _ = h.command("diagnostics")
        let id = try h.firstCommandID(token)
        for _ in 0..<4 {
            h.advance(.seconds(30))
            _ = h.frames(token)
        }
        #expect(h.results(token, id: id, name: "diagnostics").status == 200)
    }

    /// "A screenshot never outlives its session": a result that comes after the session ended is
    /// answered 2xx, counts as the command's answer, and reaches no viewer, while one within the
    /// session does.
    @Test(arguments: ["the device ended it", "the device went quiet"])
    func aResultAfterTheSessionEndedReachesNoViewer(_ ending: String) throws {
        var h = HubHarness()
        let token = try h.startSession()
        _ = h.watch(HubHarness.watcher)
        _ = h.frames(token)
        _ = h.command("diagnostics")
        let inSession = try h.firstCommandID(token)
        #expect(h.results(token, id: inSession, name: "diagnostics").status == 200)
        #expect(h.events().ofType("result").count == 1, "a result within the session is delivered")

        _ = h.command("screenshot")
        let late = try h.firstCommandID(token)
        let atTheEnd = h.emitted.count
        if ending == "the device ended it" {
            _ = h.frames(token, state: "ended", reason: "paused")
        } else {
            h.advance(.seconds(61))
        }
        #expect(!h.hub.isInSession(h.key))
        #expect(h.results(token, id: late, name: "screenshot").status == 200)
        let events = h.events(from: atTheEnd)
        #expect(events.ofType("session_ended").count == 1, "the viewers are still watching")
        #expect(events.ofType("result").isEmpty)
        // Sent again after a lost answer, it still goes nowhere.
        #expect(h.results(token, id: late, name: "screenshot").status == 200)
        #expect(h.events(from: atTheEnd).ofType("result").isEmpty)
    }

    /// "Commands stay pending on the backend until their result arrives, or for 2 minutes"
    @Test func aCommandNobodyFetchedLapsesAfterTwoMinutes() throws {
        var h = HubHarness()
        let token = try h.startSession()
        _ = h.command("screenshot")
        for _ in 0..<4 {
            h.advance(.seconds(30))
            _ = h.frames(token)
        }
        h.advance(.seconds(1))
        _ = h.frames(token)
        let held = h.next(token)
        #expect(held.hold != nil, "nothing left to send")
    }

    /// "... so one can come twice, in the same live session or the next."
    @Test func anUnansweredCommandComesAgainInTheNextSession() throws {
        var h = HubHarness()
        let token = try h.startSession()
        _ = h.frames(token)
        _ = h.command("diagnostics")
        let first = json(try #require(h.next(token).reply))["commands"]?.arrayValue?.first?["id"]?.stringValue
        #expect(h.next(token).hold != nil, "not sent again at once")
        _ = h.frames(token, state: "ended", reason: "paused")
        _ = h.hello(token: token)
        #expect(h.hub.isInSession(h.key))
        let again = json(try #require(h.next(token).reply))["commands"]?.arrayValue?.first?["id"]?.stringValue
        #expect(again == first && first != nil)
        #expect(h.results(token, id: first!, name: "diagnostics").status == 200)
    }

    @Test func anUnansweredCommandComesAgainInTheSameSessionAfterAWhile() throws {
        var h = HubHarness()
        let token = try h.startSession()
        _ = h.frames(token)
        _ = h.command("diagnostics")
        _ = try #require(h.next(token).reply)
        let held = try #require(h.next(token).hold)
        h.advance(.seconds(25))
        #expect(h.releasedReply(held) == HubReply.noContent)
        let again = try #require(h.next(token).hold)
        h.advance(.seconds(5))
        #expect(json(try #require(h.releasedReply(again)))["commands"]?.arrayValue?.count == 1)
    }

    @Test func pendingCommandsAreBounded() throws {
        var h = HubHarness()
        _ = try h.startSession()
        for _ in 0..<16 { #expect(h.command("screenshot").status == 202) }
        #expect(h.command("screenshot").status == 429)
    }

    /// A `next` after the session ended hears why.
    @Test func aNextWithoutASessionHearsTheStop() throws {
        var h = HubHarness()
        let token = try h.startSession()
        _ = h.frames(token)
        h.advance(.seconds(61))
        let answer = json(try #require(h.next(token).reply))
        #expect(answer["stop"]?.stringValue == "ended")
    }
}
