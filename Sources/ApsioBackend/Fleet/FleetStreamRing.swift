package import ApsioCore
import ApsioJSON

/// One device's recent viewer events as one instance heard them on the device's `apsio:events`
/// channel, which it subscribes to while its viewers poll here: what a viewer's stream poll on
/// this instance is answered from. Events are numbered per device, so a poll's `after` means the
/// same on every instance, and a ring begun when a viewer's poll first lands here starts from
/// the device's recent events as Redis kept them.
///
/// Pub/sub delivers in order but may lose messages (while this instance's subscription was down),
/// so a number skipped becomes a `gap` event saying how many were missed, never a silent hole.
/// A session shown here that ended among the missed is told ended all the same, with the reason
/// every message carries of the device's latest end (`HubSessionEnd`): after a replace, the
/// viewers learn the old session is over before they see the new one's frames. Missed messages
/// that nothing follows are found by the device's document, which every viewer's poll reads:
/// once it has been ahead of the ring for `catchUpGrace` (what was published before it was read
/// has arrived by then), the ring catches up to it the same way.
/// A session's live data goes when the session ends; everything goes after `memory` or past the
/// byte and count bounds, and a poll that falls behind is told how many it missed (`dropped`).
package struct FleetStreamRing: Sendable {
    package struct Event: Sendable {
        package let seq: UInt64
        package let liveData: Bool
        package let json: [UInt8]
        package let receivedAt: MonotonicInstant
    }

    package private(set) var events: [Event] = []
    private var bytes = 0
    /// The highest number heard, or made up for a gap.
    package private(set) var lastSeq: UInt64
    /// Events up to this number are gone from the ring (trimmed), or were never heard here.
    private var horizon: UInt64
    package private(set) var snapshot: FleetDeviceSnapshot
    /// The snapshot's event number: a newer one (from a message or a document) replaces it.
    private var snapshotSeq: UInt64
    private(set) var lastUsed: MonotonicInstant
    /// The device's document read at a number the ring had not heard: when, and what it said.
    private var ahead: (seq: UInt64, snapshot: FleetDeviceSnapshot, since: MonotonicInstant, deferred: Bool)?
    /// Which making of the device's state the ring's numbers count in (`FleetDeviceDocument.made`).
    package private(set) var made: UInt64

    /// A jump larger than this is a document made again (its numbers start from Redis's clock),
    /// not events lost: nothing is reported missing across it.
    static let largestGap: UInt64 = 100_000

    /// A ring starting at `seq`, with what a document or message said then.
    package init(after seq: UInt64, made: UInt64 = 0, snapshot: FleetDeviceSnapshot, now: MonotonicInstant) {
        self.made = made
        lastSeq = seq
        horizon = seq
        self.snapshot = snapshot
        snapshotSeq = seq
        lastUsed = now
    }

    /// A ring for a device this instance starts serving: from the events Redis kept of it
    /// (`recent`, oldest first) that count in the document's making, then what the document
    /// read at `seq` says. A viewer whose previous poll another instance answered goes on from
    /// them; what is older than the oldest kept is reported missing.
    package init(recent: [FleetEventMessage], document snapshot: FleetDeviceSnapshot, atSeq seq: UInt64, made: UInt64, device: DeviceKey, now: LiveNow, limits: BackendLimits) {
        let kept = recent.filter { $0.device == device && ($0.made == made || made == 0 || $0.made == 0) }
        guard let first = kept.first else {
            self.init(after: seq, made: made, snapshot: snapshot, now: now.mono)
            return
        }
        self.init(after: first.seq - 1, made: made, snapshot: first.snapshot, now: now.mono)
        for message in kept { _ = receive(message, now: now.mono, nowUnixMs: now.wallUnixMs, limits: limits) }
        observe(snapshot, atSeq: seq, made: made, device: device, now: now)
    }

    /// How long the device's document may be ahead of what the ring heard, with no message heard
    /// meanwhile, before the ring takes the difference as lost: messages published with a change
    /// arrive a moment after it is readable, and a busy device's keep coming.
    package static let catchUpGrace: Duration = .seconds(2)

    /// Adds an event heard on the channel; returns false for one heard already.
    package mutating func receive(
        _ message: FleetEventMessage, now: MonotonicInstant, nowUnixMs: Int64, limits: BackendLimits
    ) -> Bool {
        if isMadeAgain(message.made) {
            madeAgain(at: message.seq - 1, made: message.made, device: message.device, now: now, nowUnixMs: nowUnixMs)
        }
        guard message.seq > lastSeq else { return false }
        if message.seq - lastSeq > Self.largestGap {
            events = []
            bytes = 0
            horizon = message.seq - 1
        } else if message.seq > lastSeq + 1 {
            // The message's own `session_ended` tells the end of the session it ended.
            let tellsTheEnd = message.type == "session_ended" && message.snapshot.lastEnd?.number == snapshot.session?.number
            missed(upTo: message.seq - 1, device: message.device, then: message.snapshot, tellsTheEnd: tellsTheEnd,
                   now: now, nowUnixMs: nowUnixMs)
        }
        if let ahead {
            // Heard up to the document: nothing was lost. Short of it but moving: the rest is on
            // its way, and the grace counts from this message.
            if message.seq >= ahead.seq { self.ahead = nil } else { self.ahead!.since = now }
        }
        if message.type == "session_ended" || message.type == "device_gone" { dropLiveData() }
        append(Event(seq: message.seq, liveData: message.liveData, json: message.json, receivedAt: now))
        lastSeq = message.seq
        if message.seq >= snapshotSeq {
            snapshot = message.snapshot
            snapshotSeq = message.seq
        }
        trim(now: now, limits: limits)
        return true
    }

    /// What a document read at event number `seq`, in its making `made`, says. A document made
    /// again (another `made`) is the device's state lost and begun anew: the session shown here
    /// ended with it, told at once as `backend_restarted` to the people who watched it, who stay
    /// in the ring's snapshot until the device's next event or document says who watches now.
    package mutating func observe(
        _ snapshot: FleetDeviceSnapshot, atSeq seq: UInt64, made: UInt64, device: DeviceKey, now: LiveNow
    ) {
        guard isMadeAgain(made) else { return observe(snapshot, atSeq: seq, now: now.mono) }
        let watched = self.snapshot.viewers
        madeAgain(at: seq, made: made, device: device, now: now.mono, nowUnixMs: now.wallUnixMs)
        self.snapshot = snapshot
        self.snapshot.viewers = watched
        lastUsed = now.mono
    }

    /// Whether `made` names another making of the device's state than the ring's numbers count in.
    package func isMadeAgain(_ made: UInt64) -> Bool { made != self.made && made != 0 && self.made != 0 }

    /// What a document read at event number `seq` says. Ahead of what the ring heard, only its
    /// viewers are taken at once (a viewer who just joined is watching); the rest waits for the
    /// messages, or for `catchUp` if they never come, so a session's end is never skipped over in
    /// silence.
    package mutating func observe(_ snapshot: FleetDeviceSnapshot, atSeq seq: UInt64, now: MonotonicInstant) {
        lastUsed = now
        if seq > lastSeq, seq - lastSeq <= Self.largestGap {
            if ahead.map({ seq > $0.seq }) ?? true { ahead = (seq, snapshot, ahead?.since ?? now, ahead?.deferred ?? false) }
            self.snapshot.viewers = snapshot.viewers
            return
        }
        guard seq >= snapshotSeq else { return }
        self.snapshot = snapshot
        snapshotSeq = seq
    }

    /// Whether the document has been ahead for `catchUpGrace` and the missing events were not
    /// looked for yet: the owner reads them from the device's recent events (`deferCatchUp`,
    /// then `receive`) before `catchUp` reports them missing.
    package func wantsRecentEvents(now: MonotonicInstant) -> Bool {
        guard let ahead, !ahead.deferred else { return false }
        return now >= ahead.since + Self.catchUpGrace
    }

    /// The missing events are being looked for: `catchUp` waits another grace for them.
    package mutating func deferCatchUp(now: MonotonicInstant) {
        guard ahead != nil else { return }
        ahead!.since = now
        ahead!.deferred = true
    }

    /// Whether `message` follows what the ring heard with events missing between (not a
    /// document made again, whose numbers start afresh).
    package func isAfterAGap(_ message: FleetEventMessage) -> Bool {
        !isMadeAgain(message.made) && message.seq > lastSeq + 1 && message.seq - lastSeq <= Self.largestGap
    }

    /// Takes what the document said as heard once it has been ahead for `catchUpGrace`: a `gap`
    /// for the messages that never came, and the end of a session shown here that ended among
    /// them. Returns whether the ring changed (its polls have something new to hear).
    package mutating func catchUp(device: DeviceKey, now: MonotonicInstant, nowUnixMs: Int64) -> Bool {
        guard let ahead, now >= ahead.since + Self.catchUpGrace else { return false }
        self.ahead = nil
        guard ahead.seq > lastSeq else { return false }
        missed(upTo: ahead.seq, device: device, then: ahead.snapshot, tellsTheEnd: false, now: now, nowUnixMs: nowUnixMs)
        lastSeq = ahead.seq
        snapshot = ahead.snapshot
        snapshotSeq = ahead.seq
        return true
    }

    /// The device's state was made again: what the ring kept counts in the old numbering and
    /// goes; the session it showed ended with the state, and its viewers are told so, numbered
    /// `seq`, above anything they saw.
    private mutating func madeAgain(at seq: UInt64, made: UInt64, device: DeviceKey, now: MonotonicInstant, nowUnixMs: Int64) {
        self.made = made
        events = []
        bytes = 0
        ahead = nil
        // Nothing is counted missing across the two numberings.
        horizon = 0
        lastSeq = seq
        snapshotSeq = min(snapshotSeq, seq)
        guard snapshot.session != nil else { return }
        append(Event(
            seq: seq, liveData: false,
            json: sessionEndedJSON(seq: seq, device: device, reason: "backend_restarted", atUnixMs: nowUnixMs), receivedAt: now))
        snapshot.session = nil
    }

    /// Events up to `seq` were never heard: a `gap` says how many, numbered `seq`, and a session
    /// this ring shows that is not the one `after` shows ended among them, unless the message that
    /// follows says so itself.
    private mutating func missed(
        upTo seq: UInt64, device: DeviceKey, then after: FleetDeviceSnapshot, tellsTheEnd: Bool, now: MonotonicInstant,
        nowUnixMs: Int64
    ) {
        append(Event(seq: seq, liveData: false, json: Self.gapJSON(device, seq: seq, missed: seq - lastSeq), receivedAt: now))
        guard let shown = snapshot.session, after.session?.number != shown.number, !tellsTheEnd else { return }
        // The reason is known when the device's latest end is this session's; several sessions
        // ended among the missed, the one shown here ended for a reason nobody kept.
        let end = after.lastEnd.flatMap { $0.number == shown.number ? $0 : nil }
        dropLiveData()
        append(Event(
            seq: seq, liveData: false,
            json: sessionEndedJSON(seq: seq, device: device, reason: end?.reason ?? "missed", atUnixMs: end?.atUnixMs ?? nowUnixMs),
            receivedAt: now))
        snapshot.session = nil
    }

    /// Ends the session without a message: Redis lost the state, so no instance will send one.
    package mutating func endSessionLocally(reason: String, app: String, install: String, nowUnixMs: Int64, now: MonotonicInstant) {
        guard snapshot.session != nil else { return }
        dropLiveData()
        lastSeq += 1
        let json = sessionEndedJSON(seq: lastSeq, device: DeviceKey(app: app, install: install), reason: reason, atUnixMs: nowUnixMs)
        append(Event(seq: lastSeq, liveData: false, json: json, receivedAt: now))
        snapshot.session = nil
        snapshotSeq = lastSeq
    }

    /// A `session_ended` as the hub writes it, for an end no message told this instance.
    private func sessionEndedJSON(seq: UInt64, device: DeviceKey, reason: String, atUnixMs: Int64) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("seq"); writer.uint(seq)
        writer.key("type"); writer.string("session_ended")
        writer.key("at"); writer.int(atUnixMs)
        writer.key("app"); writer.string(device.app)
        writer.key("install"); writer.string(device.install)
        writer.key("reason"); writer.string(reason)
        writer.endObject()
        return writer.bytes
    }

    /// The events after `after`, and how many after it are gone from the ring or were never
    /// heard by this instance. Every event kept is numbered above `horizon`.
    package func events(after: UInt64) -> (events: [Event], dropped: Int) {
        let waiting = events.filter { $0.seq > after }
        guard after < horizon, horizon - after <= Self.largestGap else { return (waiting, 0) }
        return (waiting, Int(horizon - after))
    }

    mutating func touch(now: MonotonicInstant) { lastUsed = now }

    package mutating func trim(now: MonotonicInstant, limits: BackendLimits) {
        var cut = 0
        while cut < events.count,
            events.count - cut > limits.maxFleetStreamEventsPerDevice || bytes > limits.maxFleetStreamBytesPerDevice
                || now >= events[cut].receivedAt + limits.fleetStreamMemory
        {
            bytes -= events[cut].json.count
            horizon = max(horizon, events[cut].seq)
            cut += 1
        }
        if cut > 0 { events.removeFirst(cut) }
    }

    package var isIdle: Bool { events.isEmpty }

    private mutating func append(_ event: Event) {
        events.append(event)
        bytes += event.json.count
    }

    private mutating func dropLiveData() {
        events.removeAll { event in
            guard event.liveData else { return false }
            bytes -= event.json.count
            return true
        }
    }

    /// A `gap` event as viewers receive it: `missed` events up to `seq` are not shown.
    static func gapJSON(_ device: DeviceKey, seq: UInt64, missed: UInt64) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("seq"); writer.uint(seq)
        writer.key("type"); writer.string("gap")
        writer.key("app"); writer.string(device.app)
        writer.key("install"); writer.string(device.install)
        writer.key("missed"); writer.uint(missed)
        writer.endObject()
        return writer.bytes
    }
}
