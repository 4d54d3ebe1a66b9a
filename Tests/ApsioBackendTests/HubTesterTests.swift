import ApsioBackend
import ApsioCore
import Testing

/// 16.7: which hellos count, and what the backend keeps of them.
@Suite struct HubTesterTests {
    @Test func aCountingHelloGetsA64HexTokenAndTheInterval() throws {
        var h = HubHarness()
        let reply = h.hello()
        #expect(reply.status == 200)
        let body = json(reply)
        let token = try #require(body["device_token"]?.stringValue)
        #expect(Hex.isLowercase(token, length: 64))
        #expect(body["viewers"]?.numberValue == 0)
        #expect(body["interval_s"]?.numberValue == 30)
        #expect(h.hub.hasPresence(h.key))
    }

    /// "A hello with no proof, or one that is not 64 lowercase hex characters, has a tester that
    /// does not count (not a 400) ... answered { viewers: 0, interval_s: s }, with no device_token"
    @Test(arguments: [
        ("no proof", nil, HubHarness.testerID),
        ("upper-case proof", HubHarness.proof.secretHex.uppercased(), HubHarness.testerID),
        ("63 characters", String(HubHarness.proof.secretHex.dropLast()), HubHarness.testerID),
        ("another install's proof", TesterProof(entryID: HubHarness.testerID, installationID: "other", hashing: sha256).secretHex, HubHarness.testerID),
        ("an unlisted id", HubHarness.proof.secretHex, "someone-else"),
        ("no tester", HubHarness.proof.secretHex, nil),
    ] as [(String, String?, String?)])
    func aTesterThatDoesNotCountGetsNoToken(_ why: String, proof: String?, tester: String?) {
        var h = HubHarness()
        let reply = h.hello(proof: proof, tester: tester)
        #expect(reply.status == 200, "\(why)")
        #expect(json(reply) == .object(["viewers": .number(0), "interval_s": .number(30)]), "\(why)")
        #expect(!h.hub.hasPresence(h.key), "\(why)")
    }

    @Test func anExpiredEntryDoesNotCount() {
        var h = HubHarness(testerExpiresAt: 1_799_999_999)
        #expect(json(h.hello())["device_token"] == nil)
    }

    /// "... the hello neither makes, renews nor replaces the install's token or presence, so it
    /// cannot end another sender's live session."
    @Test func aHelloThatDoesNotCountCannotEndAnotherSendersSession() throws {
        var h = HubHarness()
        let token = try h.startSession()
        #expect(h.frames(token).status == 200)
        let intruder = h.hello(proof: String(repeating: "0", count: 64))
        #expect(json(intruder)["device_token"] == nil)
        #expect(h.hub.isInSession(h.key))
        #expect(h.next(token).hold != nil)
        #expect(h.events().ofType("session_ended").isEmpty)
    }

    /// "MUST NOT keep a hello's proof beyond the check: the presence keeps the tester only."
    @Test func theProofIsNeverKept() throws {
        var h = HubHarness()
        let token = try h.startSession()
        _ = h.frames(token, lines: ["hello"])
        _ = h.hello(token: token)
        let dump = h.dump
        #expect(!dump.contains(HubHarness.proof.secretHex))
        // The presence does keep the tester's id: that is how the viewers know whose device it is.
        #expect(dump.contains(HubHarness.testerID))
    }

    @Test func anUnknownAppKeyIs401AndChangesNothing() {
        var h = HubHarness()
        let reply = h.hello(appKey: "not-a-key-at-all")
        #expect(reply.status == 401)
        #expect(!h.hub.hasPresence(h.key))
    }

    @Test func anUnreadableHelloIs400() {
        var h = HubHarness()
        #expect(h.hub.hello(appKey: HubHarness.appKey, token: nil, body: Array("not json".utf8), now: h.now).status == 400)
        #expect(h.hub.hello(appKey: HubHarness.appKey, token: nil, body: Array("{}".utf8), now: h.now).status == 400)
        #expect(h.hub.hello(appKey: HubHarness.appKey, token: nil, body: Array("[1]".utf8), now: h.now).status == 400)
    }

    /// A tester removed from the policy (here: its entry expiring) ends a running session with
    /// `stop: tester_removed`.
    @Test func anEntryExpiringMidSessionStopsItWithTesterRemoved() throws {
        var h = HubHarness(testerExpiresAt: 1_800_000_100)
        let token = try h.startSession()
        _ = h.frames(token)
        var held = try #require(h.next(token).hold)
        for _ in 0..<4 {
            h.advance(.seconds(25))
            #expect(h.releasedReply(held)?.status == 204)
            held = try #require(h.next(token).hold)
        }
        #expect(h.hub.isInSession(h.key))
        h.advance(.seconds(5))
        let reply = try #require(h.releasedReply(held))
        #expect(json(reply)["stop"]?.stringValue == "tester_removed")
        #expect(!h.hub.isInSession(h.key))
    }
}
