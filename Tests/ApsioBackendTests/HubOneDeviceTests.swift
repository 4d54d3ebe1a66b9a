@testable import ApsioBackend
import ApsioCore
import ApsioJSON
import Testing

/// The rules on one device at a time, as the fleet runs them: a device comes out of a step as its
/// store keeps it (never its token) and goes into the next step's rules from there.
@Suite struct HubOneDeviceTests {
    static let holdUntil = MonotonicInstant(.seconds(5000))

    /// What the fleet writes to Redis of a stored device.
    static func document(_ stored: LiveHub.StoredDevice) -> [UInt8] {
        var document = FleetDeviceDocument()
        document.device = stored.device
        document.tokenHash = stored.tokenHash
        document.lastEventSeq = stored.lastEventSeq
        document.lastSessionNumber = stored.lastSessionNumber
        return document.encoded()
    }

    /// The rules of a harness without its devices: another instance, another request.
    static func freshRules() -> LiveHub { HubHarness().hub }

    @Test func aStoredDeviceKeepsOnlyItsTokensHash() throws {
        var h = HubHarness()
        let token = try h.presentToken()
        let stored = try #require(h.hub.unloaded(h.key))
        #expect(stored.tokenHash == Hex.lowercase(sha256.sha256(Array(token.utf8))))
        #expect(stored.device.presence?.token == "#" + stored.tokenHash!)
        let document = Self.document(stored)
        #expect(!String(decoding: document, as: UTF8.self).contains(token))
    }

    @Test func theTokenPresentedIsTheDevicesOnlyWhenItsHashIsTheStoredOne() throws {
        var h = HubHarness()
        let token = try h.presentToken()
        let stored = try #require(h.hub.unloaded(h.key))
        let hash = Hex.lowercase(sha256.sha256(Array(token.utf8)))

        var loaded = Self.freshRules().loading(h.key, stored, presented: (token, hash), next: .none, holdUntil: Self.holdUntil)
        let frames = loaded.hub.frames(
            appKey: HubHarness.appKey, token: token, body: JSONWriter.encode(.object(["install": .string(HubHarness.install), "state": .string("live"), "lines": .array([])])),
            wireBytes: 10, now: h.now)
        #expect(frames.status != 401)

        let other = String(repeating: "ab", count: 32)
        let otherHash = Hex.lowercase(sha256.sha256(Array(other.utf8)))
        var refused = Self.freshRules().loading(h.key, stored, presented: (other, otherHash), next: .none, holdUntil: Self.holdUntil)
        let step = refused.hub.next(appKey: HubHarness.appKey, token: other, install: HubHarness.install, now: h.now)
        #expect(step.reply?.status == 401)
        // Nor does the stand-in the store keeps in the token's place open anything.
        var standIn = Self.freshRules().loading(h.key, stored, presented: nil, next: .none, holdUntil: Self.holdUntil)
        let guessed = standIn.hub.next(appKey: HubHarness.appKey, token: "#" + hash, install: HubHarness.install, now: h.now)
        #expect(guessed.reply?.status == 401)
    }

    @Test func aStepLeavesTheDeviceAsItFoundItWhenNothingHappens() throws {
        var h = HubHarness()
        let token = try h.presentToken()
        _ = h.watch()
        let stored = try #require(h.hub.unloaded(h.key))
        let hash = Hex.lowercase(sha256.sha256(Array(token.utf8)))
        let loaded = Self.freshRules().loading(h.key, stored, presented: (token, hash), next: .held(HoldID(value: 7)), holdUntil: Self.holdUntil)
        let again = try #require(loaded.hub.unloaded(h.key))
        #expect(again.tokenHash == stored.tokenHash)
        #expect(again.lastEventSeq == stored.lastEventSeq && again.lastSessionNumber == stored.lastSessionNumber)
        #expect(again.device.heldNext == nil)
        #expect(again.device.viewers.keys.sorted() == stored.device.viewers.keys.sorted())
        #expect(Self.document(again)
            == Self.document(stored))
    }

    /// A command queued on one instance while another holds the device's `next`: the step shows
    /// it would have answered that `next`, and is run again without it (the holder is woken).
    @Test func aStepThatWouldAnswerANextHeldElsewhereShowsIt() throws {
        var h = HubHarness()
        let token = try h.startSession()
        #expect(h.frames(token).status == 200)
        let stored = try #require(h.hub.unloaded(h.key))
        let body = JSONWriter.encode(.object(["name": .string("screenshot")]))

        var elsewhere = Self.freshRules().loading(h.key, stored, presented: nil, next: .elsewhere, holdUntil: Self.holdUntil)
        let sentinel = try #require(elsewhere.sentinel)
        #expect(elsewhere.hub.command(HubHarness.admin, app: nil, install: HubHarness.install, body: body, now: h.now).status == 202)
        #expect(elsewhere.hub.takeReleases().map(\.hold) == [sentinel])

        var nobody = Self.freshRules().loading(h.key, stored, presented: nil, next: .none, holdUntil: Self.holdUntil)
        #expect(nobody.sentinel == nil)
        #expect(nobody.hub.command(HubHarness.admin, app: nil, install: HubHarness.install, body: body, now: h.now).status == 202)
        #expect(nobody.hub.takeReleases().isEmpty)
        // The command waits in what the store keeps, for the holder's next look.
        #expect(nobody.hub.unloaded(h.key)?.device.commands.count == 1)
    }
}
