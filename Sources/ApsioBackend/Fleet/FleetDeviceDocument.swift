import ApsioCore
import ApsioJSON

/// One device's state as the fleet keeps it in Redis: what `HubDevice` holds, less what lives in
/// an instance (the held `next`, viewers' held polls and queues), plus the device's own counters.
///
/// The device token is never written: only its SHA-256. Instants are Redis's clock in Unix
/// milliseconds (`MonotonicInstant` counted from the Unix epoch), the one clock all instances
/// judge expiry by.
struct FleetDeviceDocument: Sendable {
    var device = HubDevice()
    var tokenHash: String?
    var lastSessionNumber: UInt64 = 0
    var lastEventSeq: UInt64 = 0
    /// The first number of this document's events, from Redis's clock when it was made: another
    /// one means the device's state was made again (Redis lost it), whatever its numbers say.
    /// 0 in a document an earlier apsio-backend made.
    var made: UInt64 = 0
    /// The instance that last held the device's `next`: a change there is announced as a wake-up.
    var nextHolder: String?
    /// The event number each viewer joined after: a viewer's first stream poll starts there, as
    /// its queue would have in memory, wherever the poll lands.
    var joinedAfter: [String: UInt64] = [:]

    static let version = 1

    func encoded() -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 1024)
        writer.beginObject()
        writer.key("v"); writer.int(Int64(Self.version))
        writer.key("sn"); writer.uint(lastSessionNumber)
        writer.key("es"); writer.uint(lastEventSeq)
        writer.key("mk"); writer.uint(made)
        writer.key("nh"); optional(nextHolder, &writer)
        writer.key("caps"); writer.bool(device.capsReached)
        writer.key("stop"); optional(device.lastStop, &writer)
        writer.key("le")
        if let end = device.lastEnd {
            writer.beginObject()
            writer.key("n"); writer.uint(end.number)
            writer.key("r"); writer.string(end.reason)
            writer.key("at"); writer.int(end.atUnixMs)
            writer.endObject()
        } else {
            writer.null()
        }
        writer.key("p")
        if let presence = device.presence {
            writer.beginObject()
            writer.key("th"); optional(tokenHash, &writer)
            writer.key("tester"); writer.string(presence.tester)
            writer.key("iv"); writer.int(Self.ms(presence.interval))
            writer.key("seen"); writer.int(Self.ms(presence.lastSeen))
            writer.key("sid"); optional(presence.session, &writer)
            writer.key("model"); writer.string(presence.model)
            writer.key("os"); writer.string(presence.os)
            writer.key("rel"); writer.string(presence.release)
            writer.key("reason"); optional(presence.reason, &writer)
            writer.key("hello"); writer.int(presence.lastHelloUnixMs)
            writer.endObject()
        } else {
            writer.null()
        }
        writer.key("s")
        if let session = device.session {
            writer.beginObject()
            writer.key("n"); writer.uint(session.number)
            writer.key("start"); writer.int(Self.ms(session.startedAt))
            writer.key("act"); writer.int(Self.ms(session.lastActivity))
            writer.key("first"); optionalInstant(session.firstFramesAt, &writer)
            writer.key("um"); optionalInstant(session.untilMono, &writer)
            writer.key("uw"); if let until = session.untilUnixMs { writer.int(until) } else { writer.null() }
            writer.key("b"); writer.int(Int64(session.bytes))
            writer.key("st"); writer.string(session.state)
            writer.key("pr"); optional(session.pauseReason, &writer)
            writer.endObject()
        } else {
            writer.null()
        }
        writer.key("vw")
        writer.beginArray()
        for id in device.viewers.keys.sorted() {
            let viewer = device.viewers[id]!
            writer.beginObject()
            writer.key("id"); writer.string(id)
            writer.key("user"); writer.string(viewer.identity.user)
            writer.key("cmd"); writer.bool(viewer.identity.mayChangeSettings)
            writer.key("seen"); writer.int(Self.ms(viewer.lastSeen))
            writer.key("ja"); writer.uint(joinedAfter[id] ?? lastEventSeq)
            writer.endObject()
        }
        writer.endArray()
        writer.key("c")
        writer.beginArray()
        for command in device.commands {
            writer.beginObject()
            writer.key("id"); writer.string(command.id)
            writer.key("name"); writer.string(command.name.rawValue)
            writer.key("by"); writer.string(command.by)
            writer.key("at"); writer.int(Self.ms(command.createdAt))
            writer.key("sent"); optionalInstant(command.lastSentAt, &writer)
            writer.key("ss"); if let session = command.lastSentSession { writer.uint(session) } else { writer.null() }
            writer.key("done"); writer.bool(command.resolved)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    /// Nil for bytes that are not a document of this version: the device is then treated as
    /// unknown (its next request is answered 401 and it says hello again), never as a crash.
    init?(decoding bytes: [UInt8]) {
        guard let object = JSONBody.object(bytes), object["v"]?.numberValue == Double(Self.version) else { return nil }
        lastSessionNumber = Self.uint(object["sn"]) ?? 0
        lastEventSeq = Self.uint(object["es"]) ?? 0
        made = Self.uint(object["mk"]) ?? 0
        nextHolder = object["nh"]?.stringValue
        device.capsReached = object["caps"]?.boolValue ?? false
        device.lastStop = object["stop"]?.stringValue
        if let end = object["le"], case .object = end, let number = Self.uint(end["n"]), let reason = end["r"]?.stringValue {
            device.lastEnd = HubSessionEnd(number: number, reason: reason, atUnixMs: Self.int(end["at"]) ?? 0)
        }
        if let p = object["p"], case .object = p {
            guard let tester = p["tester"]?.stringValue, let interval = Self.int(p["iv"]), let seen = Self.instant(p["seen"]) else { return nil }
            tokenHash = p["th"]?.stringValue
            device.presence = HubPresence(
                token: LiveHub.standIn(forHash: tokenHash ?? ""), tester: tester, interval: .milliseconds(interval), lastSeen: seen,
                session: p["sid"]?.stringValue, model: p["model"]?.stringValue ?? "", os: p["os"]?.stringValue ?? "",
                release: p["rel"]?.stringValue ?? "", reason: p["reason"]?.stringValue, lastHelloUnixMs: Self.int(p["hello"]) ?? 0)
        }
        if let s = object["s"], case .object = s {
            guard let number = Self.uint(s["n"]), let started = Self.instant(s["start"]) else { return nil }
            var session = HubSession(number: number, now: started)
            session.lastActivity = Self.instant(s["act"]) ?? started
            session.firstFramesAt = Self.instant(s["first"])
            session.untilMono = Self.instant(s["um"])
            session.untilUnixMs = Self.int(s["uw"])
            session.bytes = Int(Self.int(s["b"]) ?? 0)
            session.state = s["st"]?.stringValue ?? "starting"
            session.pauseReason = s["pr"]?.stringValue
            device.session = session
        }
        for item in object["vw"]?.arrayValue ?? [] {
            guard let id = item["id"]?.stringValue, let user = item["user"]?.stringValue, let seen = Self.instant(item["seen"]) else {
                return nil
            }
            let identity = HubViewerIdentity(signIn: id, user: user, mayChangeSettings: item["cmd"]?.boolValue ?? false)
            device.viewers[id] = HubViewer(identity: identity, now: seen)
            joinedAfter[id] = Self.uint(item["ja"]) ?? lastEventSeq
        }
        for item in object["c"]?.arrayValue ?? [] {
            guard let id = item["id"]?.stringValue, let name = item["name"]?.stringValue.flatMap(LiveCommandName.init(rawValue:)),
                let created = Self.instant(item["at"])
            else { return nil }
            var command = PendingCommand(id: id, name: name, by: item["by"]?.stringValue ?? "", createdAt: created)
            command.lastSentAt = Self.instant(item["sent"])
            command.lastSentSession = Self.uint(item["ss"])
            command.resolved = item["done"]?.boolValue ?? false
            device.commands.append(command)
        }
    }

    init() {}

    // MARK: - Numbers

    static func ms(_ instant: MonotonicInstant) -> Int64 { ms(instant.sinceOrigin) }

    static func ms(_ duration: Duration) -> Int64 {
        duration.wholeMilliseconds
    }

    private static func int(_ value: JSONValue?) -> Int64? {
        guard let number = value?.numberValue, number.isFinite, abs(number) < 9.0e15 else { return nil }
        return Int64(number)
    }

    private static func uint(_ value: JSONValue?) -> UInt64? {
        int(value).flatMap { $0 >= 0 ? UInt64($0) : nil }
    }

    private static func instant(_ value: JSONValue?) -> MonotonicInstant? {
        int(value).map { MonotonicInstant(.milliseconds($0)) }
    }

    private func optional(_ text: String?, _ writer: inout JSONWriter) {
        if let text { writer.string(text) } else { writer.null() }
    }

    private func optionalInstant(_ instant: MonotonicInstant?, _ writer: inout JSONWriter) {
        if let instant { writer.int(Self.ms(instant)) } else { writer.null() }
    }
}
