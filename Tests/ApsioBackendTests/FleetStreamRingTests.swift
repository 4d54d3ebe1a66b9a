import ApsioBackend
import ApsioCore
import Testing

/// The events one fleet instance keeps of a device for the viewer polls that land on it: what a
/// viewer is shown when a message was lost, when it fell behind, when a session ends.
@Suite struct FleetStreamRingTests {
    static let device = DeviceKey(app: "demo", install: "box-1")
    static let watching = FleetDeviceSnapshot(viewers: ["v1"], session: .init(state: "live"))
    static let start = MonotonicInstant(.seconds(100))

    static func message(_ seq: UInt64, type: String = "frames", live: Bool = true, snapshot: FleetDeviceSnapshot = watching) -> FleetEventMessage {
        FleetEventMessage(
            device: device, seq: seq, liveData: live, type: type, snapshot: snapshot,
            json: Array(#"{"seq":\#(seq),"type":"\#(type)"}"#.utf8))
    }

    @Test func eventsInOrderAreShownAfterThePollsNumber() {
        var ring = FleetStreamRing(after: 10, snapshot: Self.watching, now: Self.start)
        for seq: UInt64 in 11...13 {
            let kept = ring.receive(Self.message(seq), now: Self.start, limits: .default)
            #expect(kept)
        }
        let (events, dropped) = ring.events(after: 11)
        #expect(events.map(\.seq) == [12, 13])
        #expect(dropped == 0)
    }

    @Test func aMessageHeardTwiceIsKeptOnce() {
        var ring = FleetStreamRing(after: 10, snapshot: Self.watching, now: Self.start)
        let first = ring.receive(Self.message(11), now: Self.start, limits: .default)
        let second = ring.receive(Self.message(11), now: Self.start, limits: .default)
        #expect(first && !second)
        #expect(ring.events(after: 10).events.count == 1)
    }

    @Test func aLostMessageBecomesAGapEventNotASilentHole() throws {
        var ring = FleetStreamRing(after: 10, snapshot: Self.watching, now: Self.start)
        _ = ring.receive(Self.message(11), now: Self.start, limits: .default)
        _ = ring.receive(Self.message(14), now: Self.start, limits: .default)
        let events = ring.events(after: 10).events
        #expect(events.map(\.seq) == [11, 13, 14])
        let gap = try #require(JSONBody.parse(events[1].json))
        #expect(gap["type"]?.stringValue == "gap" && gap["missed"]?.numberValue == 2)
    }

    @Test func eventsFromBeforeThisInstanceHeardAnyAreReportedMissing() {
        var ring = FleetStreamRing(after: 19, snapshot: Self.watching, now: Self.start)
        _ = ring.receive(Self.message(20), now: Self.start, limits: .default)
        let (events, dropped) = ring.events(after: 15)
        #expect(events.map(\.seq) == [20])
        #expect(dropped == 4, "events 16 to 19 were published before this instance kept any")
    }

    @Test func aDocumentMadeAgainStartsANewNumberingWithoutAGap() {
        var ring = FleetStreamRing(after: 10, snapshot: Self.watching, now: Self.start)
        _ = ring.receive(Self.message(11), now: Self.start, limits: .default)
        let again: UInt64 = 1_800_000_000_000_000
        _ = ring.receive(Self.message(again), now: Self.start, limits: .default)
        let (events, dropped) = ring.events(after: 11)
        #expect(events.map(\.seq) == [again])
        #expect(dropped == 0)
    }

    @Test func aSessionsEndDropsItsLiveData() {
        var ring = FleetStreamRing(after: 10, snapshot: Self.watching, now: Self.start)
        _ = ring.receive(Self.message(11), now: Self.start, limits: .default)
        _ = ring.receive(Self.message(12, type: "viewers", live: false), now: Self.start, limits: .default)
        let ended = FleetDeviceSnapshot(viewers: ["v1"], session: nil)
        _ = ring.receive(Self.message(13, type: "session_ended", live: false, snapshot: ended), now: Self.start, limits: .default)
        #expect(ring.events(after: 0).events.map(\.seq) == [12, 13])
        #expect(ring.snapshot.session == nil)
    }

    @Test func eventsOlderThanTheRingsMemoryGoAndAreCountedForAPollBehindThem() {
        var limits = BackendLimits()
        limits.fleetStreamMemory = .seconds(40)
        var ring = FleetStreamRing(after: 10, snapshot: Self.watching, now: Self.start)
        _ = ring.receive(Self.message(11), now: Self.start, limits: limits)
        _ = ring.receive(Self.message(12), now: Self.start + .seconds(30), limits: limits)
        ring.trim(now: Self.start + .seconds(41), limits: limits)
        let (events, dropped) = ring.events(after: 10)
        #expect(events.map(\.seq) == [12])
        #expect(dropped == 1)
    }

    @Test func aRingPastItsCountKeepsTheNewest() {
        var limits = BackendLimits()
        limits.maxEventsPerViewer = 3
        var ring = FleetStreamRing(after: 0, snapshot: Self.watching, now: Self.start)
        for seq in 1...5 { _ = ring.receive(Self.message(UInt64(seq)), now: Self.start, limits: limits) }
        #expect(ring.events(after: 0).events.map(\.seq) == [3, 4, 5])
        #expect(ring.events(after: 0).dropped == 2)
    }

    @Test func stateLostWithRedisEndsTheSessionForItsViewers() throws {
        var ring = FleetStreamRing(after: 10, snapshot: Self.watching, now: Self.start)
        _ = ring.receive(Self.message(11), now: Self.start, limits: .default)
        ring.endSessionLocally(reason: "backend_restarted", app: "demo", install: "box-1", nowUnixMs: 1, now: Self.start)
        let events = ring.events(after: 11).events
        let ended = try #require(events.last.flatMap { JSONBody.parse($0.json) })
        #expect(ended["type"]?.stringValue == "session_ended" && ended["reason"]?.stringValue == "backend_restarted")
        #expect(ring.events(after: 0).events.allSatisfy { !$0.liveData }, "the session's frames went with it")
        #expect(ring.snapshot.session == nil && ring.snapshot.viewers == ["v1"])
    }

    @Test func aMessageSurvivesItsWayThroughRedis() throws {
        let message = Self.message(42)
        let decoded = try #require(FleetEventMessage(decoding: message.encoded()))
        #expect(decoded == message)
        #expect(FleetEventMessage(decoding: Array("not a message".utf8)) == nil)
    }
}
