import ApsioBackend
import ApsioCore
import Testing

/// A reload applied to the running hub: the sessions of the apps still served go on, a tester
/// taken off the list ends its session, an app taken away takes its devices with it.
@Suite struct HubReconfigureTests {
    static func configuration(
        testers: Bool = true, otherApp: Bool = false, appKey: String = HubHarness.appKey, interval: Duration = .seconds(30)
    ) -> HubConfiguration {
        let entry = TesterEntry(id: HubHarness.testerID, match: HubHarness.proof.match(hashing: sha256), expiresAt: 1_900_000_000)
        var apps = [HubApp(name: HubHarness.appName, appKey: appKey, testers: testers ? [entry] : [])]
        if otherApp { apps.append(HubApp(name: "com.example.other", appKey: "apsio_app_other_key")) }
        return HubConfiguration(origin: LiveOrigin("https://live.example.com")!, interval: interval, apps: apps)
    }

    @Test func aLiveSessionOfAnAppStillServedGoesOn() throws {
        var h = HubHarness()
        let token = try h.startSession()
        _ = h.frames(token)
        h.hub.reconfigure(Self.configuration(otherApp: true, interval: .seconds(60)), now: h.now)
        h.collect()

        #expect(h.hub.isInSession(h.key))
        #expect(h.events().ofType("session_ended").isEmpty)
        #expect(h.hub.app(forKey: "apsio_app_other_key")?.name == "com.example.other")
        // The same token still works, and the hello answers with the new interval.
        let hello = h.hello(token: token)
        #expect(json(hello)["device_token"]?.stringValue == token)
        #expect(json(hello)["interval_s"]?.numberValue == 60)
        #expect(h.frames(token).status == 200)
    }

    @Test func aTesterTakenOffTheListEndsItsSession() throws {
        var h = HubHarness()
        let token = try h.startSession()
        _ = h.frames(token)
        let held = h.next(token).hold
        h.hub.reconfigure(Self.configuration(testers: false), now: h.now)
        h.collect()

        #expect(!h.hub.isInSession(h.key))
        #expect(h.events().ofType("session_ended").last?["reason"]?.stringValue == "tester_removed")
        let answer = try #require(h.releasedReply(held))
        #expect(json(answer)["stop"]?.stringValue == "tester_removed")
        #expect(json(h.hello(token: token))["viewers"]?.numberValue == 0)
    }

    @Test func anAppTakenAwayTakesItsDevicesWithIt() throws {
        var h = HubHarness()
        let token = try h.startSession()
        _ = h.frames(token)
        let held = h.next(token).hold
        let onlyOther = HubConfiguration(
            origin: LiveOrigin("https://live.example.com")!,
            apps: [HubApp(name: "com.example.other", appKey: "apsio_app_other_key")])
        h.hub.reconfigure(onlyOther, now: h.now)
        h.collect()

        #expect(!h.hub.hasPresence(h.key) && !h.hub.isInSession(h.key))
        #expect(h.releasedReply(held)?.status == 401)
        #expect(h.events().last?["type"] == .string("device_gone"))
        #expect(h.hub.heldRequestCount == 0)
        #expect(h.hub.app(forKey: HubHarness.appKey) == nil)
        #expect(h.hello(token: token).status == 401)
        #expect(json(h.hub.devicesJSON(now: h.now))["devices"]?.arrayValue?.isEmpty == true)
    }

    @Test func aNewAppKeyReplacesTheOldOne() throws {
        var h = HubHarness()
        _ = try h.presentToken()
        h.hub.reconfigure(Self.configuration(appKey: "apsio_app_new_key"), now: h.now)
        #expect(h.hub.app(forKey: HubHarness.appKey) == nil)
        #expect(h.hub.app(forKey: "apsio_app_new_key")?.name == HubHarness.appName)
        #expect(h.hello().status == 401)
    }
}
