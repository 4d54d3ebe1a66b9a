import ApsioCore
import ApsioJSON

/// A viewer event as it travels between instances on the device's `apsio:events` channel: a
/// header line (the device, the event's number, whether it is a session's live data, and the
/// viewers and session after the step that made it), a newline, and the event as viewers receive
/// it. Redis keeps the device's latest few a little while (`FleetKeys.recentEvents`), for an
/// instance that starts serving its viewers.
package struct FleetEventMessage: Sendable, Equatable {
    package var device: DeviceKey
    package var seq: UInt64
    /// The device document's `made`: numbers count within one making of the device's state.
    package var made: UInt64
    package var liveData: Bool
    package var type: String
    package var snapshot: FleetDeviceSnapshot
    package var json: [UInt8]

    package func encoded() -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: json.count + 256)
        writer.beginObject()
        writer.key("app"); writer.string(device.app)
        writer.key("install"); writer.string(device.install)
        writer.key("seq"); writer.uint(seq)
        writer.key("made"); writer.uint(made)
        writer.key("live"); writer.bool(liveData)
        writer.key("type"); writer.string(type)
        writer.key("viewers")
        writer.beginArray()
        for id in snapshot.viewers.sorted() { writer.string(id) }
        writer.endArray()
        writer.key("session")
        if let session = snapshot.session {
            writer.beginObject()
            writer.key("n"); writer.uint(session.number)
            writer.key("state"); writer.string(session.state)
            if let reason = session.reason { writer.key("reason"); writer.string(reason) }
            if let until = session.untilUnixMs { writer.key("until"); writer.int(until) }
            writer.key("bytes"); writer.int(Int64(session.bytes))
            writer.endObject()
        } else {
            writer.null()
        }
        if let end = snapshot.lastEnd {
            writer.key("ended")
            writer.beginObject()
            writer.key("n"); writer.uint(end.number)
            writer.key("reason"); writer.string(end.reason)
            writer.key("at"); writer.int(end.atUnixMs)
            writer.endObject()
        }
        writer.endObject()
        var bytes = writer.bytes
        bytes.append(UInt8(ascii: "\n"))
        bytes += json
        return bytes
    }

    package init(
        device: DeviceKey, seq: UInt64, made: UInt64 = 0, liveData: Bool, type: String, snapshot: FleetDeviceSnapshot, json: [UInt8]
    ) {
        self.device = device
        self.seq = seq
        self.made = made
        self.liveData = liveData
        self.type = type
        self.snapshot = snapshot
        self.json = json
    }

    /// What Redis keeps in place of a message it must not keep among a device's recent events (too
    /// large, or a session's live data on a Redis that writes to a disk): a `gap` of one, so an
    /// instance catching up from them tells its viewers one is missing.
    package func standIn() -> FleetEventMessage {
        let json = FleetStreamRing.gapJSON(device, seq: seq, missed: 1)
        return FleetEventMessage(device: device, seq: seq, made: made, liveData: false, type: "gap", snapshot: snapshot, json: json)
    }

    /// Nil for anything else on the channel: a message that does not parse is dropped, as if lost.
    package init?(decoding bytes: [UInt8]) {
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")),
            let header = JSONBody.object(Array(bytes[..<newline])),
            let app = header["app"]?.stringValue, let install = header["install"]?.stringValue,
            let seq = header["seq"]?.numberValue, seq >= 1, seq < 9.0e15, let type = header["type"]?.stringValue
        else { return nil }
        device = DeviceKey(app: app, install: install)
        self.seq = UInt64(seq)
        made = Self.count(header["made"]) ?? 0
        liveData = header["live"]?.boolValue ?? false
        self.type = type
        var snapshot = FleetDeviceSnapshot(viewers: Set((header["viewers"]?.arrayValue ?? []).compactMap(\.stringValue)), session: nil)
        if let session = header["session"], case .object = session {
            snapshot.session = FleetDeviceSnapshot.Session(
                number: Self.count(session["n"]) ?? 0, state: session["state"]?.stringValue ?? "starting",
                reason: session["reason"]?.stringValue, untilUnixMs: Self.int(session["until"]),
                bytes: Int(Self.count(session["bytes"]) ?? 0))
        }
        if let end = header["ended"], case .object = end, let number = Self.count(end["n"]), let reason = end["reason"]?.stringValue {
            snapshot.lastEnd = HubSessionEnd(
                number: number, reason: reason, atUnixMs: Self.int(end["at"]) ?? 0)
        }
        self.snapshot = snapshot
        json = Array(bytes[bytes.index(after: newline)...])
    }

    /// A count as JSON carries it: a whole number from 0 below 2^53, else nil. Never a trap on
    /// what another program published on the channel.
    private static func count(_ value: JSONValue?) -> UInt64? {
        int(value).flatMap { $0 >= 0 ? UInt64($0) : nil }
    }

    private static func int(_ value: JSONValue?) -> Int64? {
        guard let number = value?.numberValue, number.isFinite, abs(number) < 9.0e15 else { return nil }
        return Int64(number)
    }
}

/// What a viewer's stream answer says beside its events: who watches, and the session.
package struct FleetDeviceSnapshot: Sendable, Equatable {
    package struct Session: Sendable, Equatable {
        /// The device's count of its sessions (`HubSession.number`): another number is another
        /// session. 0 in a message an earlier apsio-backend sent, which said none.
        package var number: UInt64
        package var state: String
        package var reason: String?
        package var untilUnixMs: Int64?
        package var bytes: Int

        package init(number: UInt64 = 0, state: String, reason: String? = nil, untilUnixMs: Int64? = nil, bytes: Int = 0) {
            self.number = number
            self.state = state
            self.reason = reason
            self.untilUnixMs = untilUnixMs
            self.bytes = bytes
        }
    }

    package var viewers: Set<String>
    package var session: Session?
    /// How the device's latest session ended: what an instance that missed that end tells its viewers.
    package var lastEnd: HubSessionEnd?

    package init(viewers: Set<String>, session: Session?, lastEnd: HubSessionEnd? = nil) {
        self.viewers = viewers
        self.session = session
        self.lastEnd = lastEnd
    }

    init(_ device: HubDevice?) {
        viewers = Set(device?.viewers.keys ?? [:].keys)
        session = device?.session.map {
            Session(number: $0.number, state: $0.state, reason: $0.pauseReason, untilUnixMs: $0.untilUnixMs, bytes: $0.bytes)
        }
        lastEnd = device?.lastEnd
    }

    /// The session as `writeSession` writes it, `remaining_ms` from this instance's wall clock.
    func writeSession(into writer: inout JSONWriter, nowUnixMs: Int64) {
        guard let session else { writer.null(); return }
        writer.beginObject()
        writer.key("state"); writer.string(session.state)
        if let reason = session.reason { writer.key("reason"); writer.string(reason) }
        writer.key("until")
        if let until = session.untilUnixMs { writer.int(until) } else { writer.null() }
        writer.key("remaining_ms")
        if let until = session.untilUnixMs { writer.int(max(0, until - nowUnixMs)) } else { writer.null() }
        writer.key("bytes"); writer.int(Int64(session.bytes))
        writer.endObject()
    }
}

/// What an instance tells the others of a device on its bucket's `apsio:wake` channel:
/// - "look at this device's held `next` again" (`wakes`), with `answer` when the step that sent
///   it would have answered a `next` held in the same instance (a renewal, which the device hears
///   through `remaining_ms`);
/// - "I changed what a hello decides on" (`changedBy`, the instance that did): the others forget
///   their copy of the document (`FleetHelloTouch`).
struct FleetWake: Sendable, Equatable {
    var device: DeviceKey
    var answer: Bool
    var wakes: Bool
    var changedBy: String?

    func encoded() -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("app"); writer.string(device.app)
        writer.key("install"); writer.string(device.install)
        writer.key("answer"); writer.bool(answer)
        if !wakes { writer.key("wake"); writer.bool(false) }
        if let changedBy { writer.key("changed_by"); writer.string(changedBy) }
        writer.endObject()
        return writer.bytes
    }

    init(device: DeviceKey, answer: Bool, wakes: Bool = true, changedBy: String? = nil) {
        self.device = device
        self.answer = answer
        self.wakes = wakes
        self.changedBy = changedBy
    }

    /// A message of an earlier release, which had neither field, is a wake-up.
    init?(decoding bytes: [UInt8]) {
        guard let object = JSONBody.object(bytes), let app = object["app"]?.stringValue,
            let install = object["install"]?.stringValue
        else { return nil }
        device = DeviceKey(app: app, install: install)
        answer = object["answer"]?.boolValue ?? false
        wakes = object["wake"]?.boolValue ?? true
        changedBy = object["changed_by"]?.stringValue
    }
}
