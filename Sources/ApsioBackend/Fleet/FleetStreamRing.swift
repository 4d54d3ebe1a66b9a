package import ApsioCore

/// One device's recent viewer events as one instance heard them on `apsio:events`: what a viewer's
/// stream poll on this instance is answered from, whichever instance served its previous poll.
/// Events are numbered per device, so a poll's `after` means the same on every instance.
///
/// Pub/sub delivers in order but may lose messages (while this instance's subscription was down),
/// so a number skipped becomes a `gap` event saying how many were missed, never a silent hole.
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

    /// A jump larger than this is a document made again (its numbers start from Redis's clock),
    /// not events lost: nothing is reported missing across it.
    static let largestGap: UInt64 = 100_000

    /// A ring starting at `seq`, with what a document or message said then.
    package init(after seq: UInt64, snapshot: FleetDeviceSnapshot, now: MonotonicInstant) {
        lastSeq = seq
        horizon = seq
        self.snapshot = snapshot
        snapshotSeq = seq
        lastUsed = now
    }

    /// Adds an event heard on the channel; returns false for one heard already.
    package mutating func receive(_ message: FleetEventMessage, now: MonotonicInstant, limits: BackendLimits) -> Bool {
        guard message.seq > lastSeq else { return false }
        if message.seq - lastSeq > Self.largestGap {
            events = []
            bytes = 0
            horizon = message.seq - 1
        } else if message.seq > lastSeq + 1 {
            append(Event(seq: message.seq - 1, liveData: false, json: gapJSON(message, missed: message.seq - lastSeq - 1), receivedAt: now))
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

    /// What a document read at event number `seq` says, when it is newer than what was heard.
    package mutating func observe(_ snapshot: FleetDeviceSnapshot, atSeq seq: UInt64, now: MonotonicInstant) {
        lastUsed = now
        guard seq >= snapshotSeq else { return }
        self.snapshot = snapshot
        snapshotSeq = seq
    }

    /// Ends the session without a message: Redis lost the state, so no instance will send one.
    package mutating func endSessionLocally(reason: String, app: String, install: String, nowUnixMs: Int64, now: MonotonicInstant) {
        guard snapshot.session != nil else { return }
        dropLiveData()
        lastSeq += 1
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("seq"); writer.uint(lastSeq)
        writer.key("type"); writer.string("session_ended")
        writer.key("at"); writer.int(nowUnixMs)
        writer.key("app"); writer.string(app)
        writer.key("install"); writer.string(install)
        writer.key("reason"); writer.string(reason)
        writer.endObject()
        append(Event(seq: lastSeq, liveData: false, json: writer.bytes, receivedAt: now))
        snapshot.session = nil
        snapshotSeq = lastSeq
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
            events.count - cut > limits.maxEventsPerViewer || bytes > limits.maxFleetStreamBytesPerDevice
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

    private func gapJSON(_ message: FleetEventMessage, missed: UInt64) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("seq"); writer.uint(message.seq - 1)
        writer.key("type"); writer.string("gap")
        writer.key("app"); writer.string(message.device.app)
        writer.key("install"); writer.string(message.device.install)
        writer.key("missed"); writer.uint(missed)
        writer.endObject()
        return writer.bytes
    }
}
