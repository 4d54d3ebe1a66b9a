import ApsioBackend
import ApsioCore
import ApsioJSON
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
            let kept = ring.receive(Self.message(seq), now: Self.start, nowUnixMs: 0, limits: .default)
            #expect(kept)
        }
        let (events, dropped) = ring.events(after: 11)
        #expect(events.map(\.seq) == [12, 13])
        #expect(dropped == 0)
    }

    @Test func aMessageHeardTwiceIsKeptOnce() {
        var ring = FleetStreamRing(after: 10, snapshot: Self.watching, now: Self.start)
        let first = ring.receive(Self.message(11), now: Self.start, nowUnixMs: 0, limits: .default)
        let second = ring.receive(Self.message(11), now: Self.start, nowUnixMs: 0, limits: .default)
        #expect(first && !second)
        #expect(ring.events(after: 10).events.count == 1)
    }

    @Test func aLostMessageBecomesAGapEventNotASilentHole() throws {
        var ring = FleetStreamRing(after: 10, snapshot: Self.watching, now: Self.start)
        _ = ring.receive(Self.message(11), now: Self.start, nowUnixMs: 0, limits: .default)
        _ = ring.receive(Self.message(14), now: Self.start, nowUnixMs: 0, limits: .default)
        let events = ring.events(after: 10).events
        #expect(events.map(\.seq) == [11, 13, 14])
        let gap = try #require(JSONBody.parse(events[1].json))
        #expect(gap["type"]?.stringValue == "gap" && gap["missed"]?.numberValue == 2)
    }

    @Test func eventsFromBeforeThisInstanceHeardAnyAreReportedMissing() {
        var ring = FleetStreamRing(after: 19, snapshot: Self.watching, now: Self.start)
        _ = ring.receive(Self.message(20), now: Self.start, nowUnixMs: 0, limits: .default)
        let (events, dropped) = ring.events(after: 15)
        #expect(events.map(\.seq) == [20])
        #expect(dropped == 4, "events 16 to 19 were published before this instance kept any")
    }

    /// A ring begun from the events Redis kept: a viewer behind them by less than they reach
    /// hears every one; one further behind is told how many are missing.
    @Test func aRingBegunFromTheKeptEventsServesViewersWhoseLastPollWasElsewhere() {
        let now = LiveNow(mono: Self.start, wallUnixMs: 0)
        let ring = FleetStreamRing(
            recent: (21...24).map { Self.message($0) }, document: Self.watching, atSeq: 24, made: 0, device: Self.device, now: now,
            limits: .default)
        #expect(ring.events(after: 22).events.map(\.seq) == [23, 24] && ring.events(after: 22).dropped == 0)
        #expect(ring.events(after: 18).dropped == 2, "19 and 20 are older than what was kept")
        let empty = FleetStreamRing(recent: [], document: Self.watching, atSeq: 30, made: 0, device: Self.device, now: now, limits: .default)
        #expect(empty.events(after: 30).events.isEmpty && empty.events(after: 28).dropped == 2)
    }

    /// Kept events of another making of the device's state (before Redis lost it) are not shown.
    @Test func keptEventsOfAnotherMakingAreLeftOut() {
        let now = LiveNow(mono: Self.start, wallUnixMs: 0)
        var old = Self.message(5)
        old.made = 4
        var current = Self.message(9_001)
        current.made = 9_000
        let ring = FleetStreamRing(
            recent: [old, current], document: Self.watching, atSeq: 9_001, made: 9_000, device: Self.device, now: now, limits: .default)
        #expect(ring.events(after: 9_000).events.map(\.seq) == [9_001])
        #expect(ring.events(after: 0).events.map(\.seq) == [9_001])
    }

    /// A document ahead of the ring asks once for the kept events before a gap is reported, and
    /// the gap comes only a grace after that if they did not fill it.
    @Test func aDocumentAheadLooksForTheKeptEventsOnceBeforeAGap() {
        var ring = FleetStreamRing(after: 10, snapshot: Self.watching, now: Self.start)
        ring.observe(Self.watching, atSeq: 12, now: Self.start)
        let due = Self.start + FleetStreamRing.catchUpGrace
        #expect(!ring.wantsRecentEvents(now: Self.start) && ring.wantsRecentEvents(now: due))
        ring.deferCatchUp(now: due)
        #expect(!ring.wantsRecentEvents(now: due + .seconds(10)), "looked for once")
        let caughtUpAtOnce = ring.catchUp(device: Self.device, now: due, nowUnixMs: 0)
        #expect(!caughtUpAtOnce, "a grace for the kept events to arrive")
        #expect(ring.isAfterAGap(Self.message(12)) && !ring.isAfterAGap(Self.message(11)))
        for seq: UInt64 in 11...12 { _ = ring.receive(Self.message(seq), now: due, nowUnixMs: 0, limits: .default) }
        let caughtUpLater = ring.catchUp(device: Self.device, now: due + .seconds(10), nowUnixMs: 0)
        #expect(!caughtUpLater, "filled: nothing missing")
        #expect(ring.events(after: 10).events.map(\.seq) == [11, 12])
    }

    @Test func aDocumentMadeAgainStartsANewNumberingWithoutAGap() {
        var ring = FleetStreamRing(after: 10, snapshot: Self.watching, now: Self.start)
        _ = ring.receive(Self.message(11), now: Self.start, nowUnixMs: 0, limits: .default)
        let again: UInt64 = 1_800_000_000_000_000
        _ = ring.receive(Self.message(again), now: Self.start, nowUnixMs: 0, limits: .default)
        let (events, dropped) = ring.events(after: 11)
        #expect(events.map(\.seq) == [again])
        #expect(dropped == 0)
    }

    @Test func aSessionsEndDropsItsLiveData() {
        var ring = FleetStreamRing(after: 10, snapshot: Self.watching, now: Self.start)
        _ = ring.receive(Self.message(11), now: Self.start, nowUnixMs: 0, limits: .default)
        _ = ring.receive(Self.message(12, type: "viewers", live: false), now: Self.start, nowUnixMs: 0, limits: .default)
        let ended = FleetDeviceSnapshot(viewers: ["v1"], session: nil)
        _ = ring.receive(Self.message(13, type: "session_ended", live: false, snapshot: ended), now: Self.start, nowUnixMs: 0, limits: .default)
        #expect(ring.events(after: 0).events.map(\.seq) == [12, 13])
        #expect(ring.snapshot.session == nil)
    }

    @Test func eventsOlderThanTheRingsMemoryGoAndAreCountedForAPollBehindThem() {
        var limits = BackendLimits()
        limits.fleetStreamMemory = .seconds(40)
        var ring = FleetStreamRing(after: 10, snapshot: Self.watching, now: Self.start)
        _ = ring.receive(Self.message(11), now: Self.start, nowUnixMs: 0, limits: limits)
        _ = ring.receive(Self.message(12), now: Self.start + .seconds(30), nowUnixMs: 0, limits: limits)
        ring.trim(now: Self.start + .seconds(41), limits: limits)
        let (events, dropped) = ring.events(after: 10)
        #expect(events.map(\.seq) == [12])
        #expect(dropped == 1)
    }

    @Test func aRingPastItsCountKeepsTheNewest() {
        var limits = BackendLimits()
        limits.maxFleetStreamEventsPerDevice = 3
        var ring = FleetStreamRing(after: 0, snapshot: Self.watching, now: Self.start)
        for seq in 1...5 { _ = ring.receive(Self.message(UInt64(seq)), now: Self.start, nowUnixMs: 0, limits: limits) }
        #expect(ring.events(after: 0).events.map(\.seq) == [3, 4, 5])
        #expect(ring.events(after: 0).dropped == 2)
    }

    @Test func stateLostWithRedisEndsTheSessionForItsViewers() throws {
        var ring = FleetStreamRing(after: 10, snapshot: Self.watching, now: Self.start)
        _ = ring.receive(Self.message(11), now: Self.start, nowUnixMs: 0, limits: .default)
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
        let numbered = Self.message(43, snapshot: Self.session(2, ended: HubSessionEnd(number: 1, reason: "replaced", atUnixMs: 5)))
        #expect(FleetEventMessage(decoding: numbered.encoded()) == numbered, "the session's number and the last end travel too")
        #expect(FleetEventMessage(decoding: Array("not a message".utf8)) == nil)
        let hostile = #"{"app":"demo","install":"box-1","seq":7,"type":"frames","session":{"n":1e300,"until":-1e300,"bytes":1e300},"ended":{"n":-4,"reason":"x","at":1e308}}"#
        #expect(FleetEventMessage(decoding: Array((hostile + "\n{}").utf8)) != nil, "numbers out of range read as absent, never a trap")
    }

    // MARK: Sessions that ended among the missed messages

    /// A device watched on `v1` whose session is number `number`, its latest end `ended`.
    static func session(_ number: UInt64?, ended: HubSessionEnd? = nil) -> FleetDeviceSnapshot {
        FleetDeviceSnapshot(viewers: ["v1"], session: number.map { .init(number: $0, state: "live") }, lastEnd: ended)
    }

    static func types(_ ring: FleetStreamRing, after: UInt64 = 0) -> [String] {
        ring.events(after: after).events.compactMap { JSONBody.parse($0.json)?["type"]?.stringValue }
    }

    static func ended(_ ring: FleetStreamRing) -> JSONValue? {
        ring.events(after: 0).events.compactMap { JSONBody.parse($0.json) }.first { $0["type"]?.stringValue == "session_ended" }
    }

    /// After a replace this instance did not hear, its viewers are told the old session ended,
    /// and why, before the new session's frames; the old one's frames go with it.
    @Test func aReplaceMissedIsToldBeforeTheNewSessionsFrames() throws {
        var ring = FleetStreamRing(after: 10, snapshot: Self.session(1), now: Self.start)
        _ = ring.receive(Self.message(11, snapshot: Self.session(1)), now: Self.start, nowUnixMs: 0, limits: .default)
        let replaced = HubSessionEnd(number: 1, reason: "replaced", atUnixMs: 1_800_000_000_000)
        _ = ring.receive(Self.message(15, snapshot: Self.session(2, ended: replaced)), now: Self.start, nowUnixMs: 9, limits: .default)
        #expect(Self.types(ring) == ["gap", "session_ended", "frames"])
        let ended = try #require(Self.ended(ring))
        #expect(ended["reason"]?.stringValue == "replaced" && ended["at"]?.numberValue == 1_800_000_000_000)
        #expect(ring.events(after: 0).events.map(\.seq) == [14, 14, 15])
        #expect(ring.snapshot.session?.number == 2)
    }

    /// Several sessions ended among the missed: the one shown here ended, for a reason nobody kept.
    @Test func aSessionThatEndedAmongSeveralMissedIsToldEndedWithoutAReason() throws {
        var ring = FleetStreamRing(after: 10, snapshot: Self.session(1), now: Self.start)
        let later = HubSessionEnd(number: 2, reason: "viewers_left", atUnixMs: 1)
        _ = ring.receive(Self.message(20, snapshot: Self.session(3, ended: later)), now: Self.start, nowUnixMs: 77, limits: .default)
        let ended = try #require(Self.ended(ring))
        #expect(ended["reason"]?.stringValue == "missed" && ended["at"]?.numberValue == 77)
    }

    /// A gap the session outlived, or a gap before the `session_ended` that tells it: no end is made up.
    @Test func noEndIsMadeUpForASessionThatGoesOnOrIsToldEnded() {
        var goesOn = FleetStreamRing(after: 10, snapshot: Self.session(1), now: Self.start)
        _ = goesOn.receive(Self.message(14, snapshot: Self.session(1)), now: Self.start, nowUnixMs: 0, limits: .default)
        #expect(Self.types(goesOn) == ["gap", "frames"])

        var told = FleetStreamRing(after: 10, snapshot: Self.session(1), now: Self.start)
        let stop = HubSessionEnd(number: 1, reason: "stop", atUnixMs: 1)
        let end = Self.message(14, type: "session_ended", live: false, snapshot: Self.session(nil, ended: stop))
        _ = told.receive(end, now: Self.start, nowUnixMs: 0, limits: .default)
        #expect(Self.types(told) == ["gap", "session_ended"])
    }

    /// A busy device: every poll reads a document a little ahead of the messages, which keep
    /// coming. Nothing is taken as lost while they do.
    @Test func aRingBehindButHearingIsNeverCaughtUpOverMessagesOnTheirWay() {
        var ring = FleetStreamRing(after: 10, snapshot: Self.session(1), now: Self.start)
        for step in 0..<10 {
            let now = Self.start + .seconds(step)
            ring.observe(Self.session(1), atSeq: UInt64(12 + step), now: now)
            _ = ring.receive(Self.message(UInt64(11 + step), snapshot: Self.session(1)), now: now, nowUnixMs: 0, limits: .default)
            let caughtUp = ring.catchUp(device: Self.device, now: now + .milliseconds(1500), nowUnixMs: 0)
            #expect(!caughtUp)
        }
        #expect(!Self.types(ring).contains("gap"))
    }

    /// A message of a device whose state Redis made again (it lost it): the session shown here
    /// ended with the state, told before what the new state says, and nothing of the old numbering
    /// is counted missing.
    @Test func aStateMadeAgainEndsTheSessionShownAsBackendRestarted() throws {
        var ring = FleetStreamRing(after: 10, made: 5, snapshot: Self.session(1), now: Self.start)
        _ = ring.receive(Self.message(11, snapshot: Self.session(1)), now: Self.start, nowUnixMs: 0, limits: .default)
        var again = Self.message(9_000_001, live: false, snapshot: Self.session(9_000_001))
        again.made = 9_000_000
        _ = ring.receive(again, now: Self.start, nowUnixMs: 42, limits: .default)
        #expect(Self.types(ring) == ["session_ended", "frames"], "the old session's frames went")
        #expect(try #require(Self.ended(ring))["reason"]?.stringValue == "backend_restarted")
        #expect(ring.events(after: 11).dropped == 0 && ring.made == 9_000_000)
    }

    /// The same found by a document a poll reads: the people who watched are told, though the
    /// state made again knows nothing of them; the next document says who watches now.
    @Test func aDocumentMadeAgainTellsItsViewersTheEndBeforeTheyLeave() throws {
        var ring = FleetStreamRing(after: 10, made: 5, snapshot: Self.session(1), now: Self.start)
        let nobody = FleetDeviceSnapshot(viewers: [], session: nil)
        let now = LiveNow(mono: Self.start, wallUnixMs: 7)
        ring.observe(nobody, atSeq: 9_000_000, made: 9_000_000, device: Self.device, now: now)
        #expect(Self.types(ring) == ["session_ended"])
        #expect(ring.snapshot.viewers == ["v1"] && ring.snapshot.session == nil)
        ring.observe(nobody, atSeq: 9_000_000, made: 9_000_000, device: Self.device, now: now)
        #expect(ring.snapshot.viewers.isEmpty && Self.types(ring) == ["session_ended"], "told once")
    }

    /// Messages that nothing follows: the document read on a poll is ahead of the ring. Within the
    /// grace the messages may still come (and then no gap is made up); past it, the ring catches
    /// up to the document and tells the end it missed.
    @Test func aDocumentAheadOfTheRingIsCaughtUpOnceTheMessagesHadTheirTime() throws {
        let stopped = Self.session(nil, ended: HubSessionEnd(number: 1, reason: "stop", atUnixMs: 3))
        var arrives = FleetStreamRing(after: 10, snapshot: Self.session(1), now: Self.start)
        arrives.observe(stopped, atSeq: 11, now: Self.start)
        #expect(arrives.snapshot.session?.number == 1, "the session as heard until the messages come")
        let end = Self.message(11, type: "session_ended", live: false, snapshot: stopped)
        _ = arrives.receive(end, now: Self.start + .seconds(1), nowUnixMs: 0, limits: .default)
        let caughtUp = arrives.catchUp(device: Self.device, now: Self.start + .seconds(5), nowUnixMs: 0)
        #expect(!caughtUp)
        #expect(Self.types(arrives) == ["session_ended"])

        var lost = FleetStreamRing(after: 10, snapshot: Self.session(1), now: Self.start)
        lost.observe(stopped, atSeq: 12, now: Self.start)
        let early = lost.catchUp(device: Self.device, now: Self.start + FleetStreamRing.catchUpGrace - .milliseconds(1), nowUnixMs: 0)
        #expect(!early)
        let due = lost.catchUp(device: Self.device, now: Self.start + FleetStreamRing.catchUpGrace, nowUnixMs: 0)
        #expect(due)
        #expect(Self.types(lost) == ["gap", "session_ended"])
        #expect(try #require(Self.ended(lost))["reason"]?.stringValue == "stop")
        #expect(lost.lastSeq == 12 && lost.snapshot.session == nil)
        let late = Self.message(12, type: "session_ended", live: false, snapshot: stopped)
        let heard = lost.receive(late, now: Self.start + .seconds(3), nowUnixMs: 0, limits: .default)
        #expect(!heard, "told once")
    }
}
