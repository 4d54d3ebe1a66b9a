import ApsioBackend
import ApsioCore
import Testing

/// 16.4: the device token and the presence it belongs to.
@Suite struct HubTokenTests {
    /// "A hello with the current token keeps it and renews the presence: its answer returns the same token."
    @Test func aHelloWithTheCurrentTokenKeepsIt() throws {
        var h = HubHarness()
        let token = try h.presentToken()
        #expect(try h.presentToken(token: token) == token)
    }

    /// "A hello whose tester counts, without the current token or with another, from anyone, replaces it"
    @Test(arguments: [nil, String(repeating: "c3", count: 32), "short"])
    func aHelloWithoutTheCurrentTokenReplacesIt(_ sent: String?) throws {
        var h = HubHarness()
        let old = try h.presentToken()
        let new = try h.presentToken(token: sent)
        #expect(new != old)
        #expect(Hex.isLowercase(new, length: 64))
        // The old token is refused from now on; the new one works.
        #expect(h.frames(old).status == 401)
        #expect(h.frames(new).status == 200)
    }

    @Test func tokensComeFromTheRandomSourceAs32Bytes() throws {
        var h = HubHarness()
        let first = try h.presentToken()
        let second = try h.presentToken()
        #expect(first == String(repeating: "11", count: 32))
        #expect(second == String(repeating: "12", count: 32))
    }

    /// "The backend keeps a device's presence, and its token, at least 2 × interval_s + 25 seconds
    /// after the hello that made the token ... and makes a new token once it has expired."
    @Test func presenceLastsTwiceTheIntervalPlus25Seconds() throws {
        var h = HubHarness()
        let token = try h.presentToken()
        h.advance(.seconds(85))
        #expect(try h.presentToken(token: token) == token)
        h.advance(.seconds(85))
        h.advance(.milliseconds(1))
        #expect(!h.hub.hasPresence(h.key))
        let fresh = try h.presentToken(token: token)
        #expect(fresh != token)
    }

    @Test func presenceFollowsTheInterval() throws {
        var h = HubHarness(interval: .seconds(60))
        let token = try h.presentToken()
        h.advance(.seconds(145))
        #expect(try h.presentToken(token: token) == token)
    }

    /// "... or the last hello, next, frames or results that carried it"
    @Test func nextAndFramesRenewThePresence() throws {
        var h = HubHarness()
        let token = try h.startSession()
        for _ in 0..<6 {
            h.advance(.seconds(50))
            #expect(h.frames(token).status == 200)
        }
        #expect(h.hub.hasPresence(h.key))
        #expect(try h.presentToken(token: token) == token)
    }

    /// "A device paused under Low Data Mode ... sends nothing, so its presence can expire
    /// meanwhile: on resume it gets 401 and starts over."
    @Test func anExpiredPresenceAnswers401() throws {
        var h = HubHarness()
        let token = try h.startSession()
        h.advance(.seconds(86))
        #expect(h.next(token).reply?.status == 401)
        #expect(h.frames(token).status == 401)
        #expect(h.results(token, id: "x", name: "screenshot").status == 401)
    }

    @Test func nextFramesAndResultsNeedTheToken() throws {
        var h = HubHarness()
        _ = try h.startSession()
        #expect(h.next(nil).reply?.status == 401)
        #expect(h.next(String(repeating: "ff", count: 32)).reply?.status == 401)
        #expect(h.frames(nil).status == 401)
        #expect(h.results("nope", id: "x", name: "screenshot").status == 401)
    }

    /// "A backend MUST NOT answer a hello 401 for its token: a missing or other token replaces it."
    @Test func aHelloIsNever401ForItsToken() {
        var h = HubHarness()
        #expect(h.hello(token: "garbage").status == 200)
        #expect(h.hello(token: String(repeating: "ab", count: 32)).status == 200)
    }
}
