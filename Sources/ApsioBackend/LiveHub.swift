package import ApsioCore
import ApsioJSON

/// The backend side of spec 16.4 and 16.7, one value for every app: requests in, answers out,
/// no I/O and no clock. The caller passes the time with each request, calls `tick(now:)` at
/// `nextDeadline`, and delivers the answers of held requests that `takeReleases()` hands back.
///
/// What it keeps: each app's tester entries (matches only), each device's presence (token,
/// tester id, what its hello said), its live session, who watches it, and its pending commands.
/// A hello's proof is checked and dropped. The events a step produces for the device's viewers
/// (`emitted`: frames, results, a session's start and end) leave with the step: the service
/// publishes them, and each instance keeps the stream its viewers poll (`FleetStreamRing`).
package struct LiveHub: Sendable {
    package let limits: Limits
    package let backendLimits: BackendLimits
    package private(set) var configuration: HubConfiguration
    let hashing: any SHA256Hashing
    private var random: any RandomBytesSource

    private var appsByKey: [String: Int] = [:]
    private var appsByName: [String: Int] = [:]
    var devices: [DeviceKey: HubDevice] = [:]
    /// Device token → device, so `frames` and `results` find their device before reading the body.
    var tokens: [String: DeviceKey] = [:]

    /// Held `next` requests: the device's, and when its hold ends.
    var holds: [HoldID: (key: DeviceKey, until: MonotonicInstant)] = [:]
    private var lastHoldNumber: UInt64 = 0
    /// Per hub in memory; per device in the fleet, where each device's document carries them.
    var lastSessionNumber: UInt64 = 0
    var lastEventSeq: UInt64 = 0
    private var releases: [HubRelease] = []
    /// The viewers' events the steps produced, for the caller to publish (`takeEmitted()`).
    var emitted: [StreamEvent] = []
    /// Who watched what, since the caller last took it (`takeAudit()`).
    private(set) var audit: [AuditEntry] = []

    package init(
        configuration: HubConfiguration, hashing: some SHA256Hashing, random: some RandomBytesSource,
        limits: Limits = .spec, backendLimits: BackendLimits = .default
    ) {
        self.configuration = configuration
        self.hashing = hashing
        self.random = random
        self.limits = limits
        self.backendLimits = backendLimits
        indexApps()
    }

    private mutating func indexApps() {
        appsByKey = [:]
        appsByName = [:]
        for (index, app) in configuration.apps.enumerated() {
            appsByKey[app.appKey] = index
            appsByName[app.name] = index
        }
    }

    // MARK: - Reconfiguring

    /// Serves `new` from now on (a reload of the operator's files). Devices of an app that is
    /// still there keep their token, their session and their viewers: a tester no longer listed
    /// (or expired) ends its session as `tester_removed`, exactly as when the entry runs out. The
    /// devices of an app that is gone are forgotten: their session ends as `app_removed`, a held
    /// `next` is answered 401 (the app key it carries is no longer known), their viewers' held
    /// polls are answered, and the device disappears from the list.
    package mutating func reconfigure(_ new: HubConfiguration, now: LiveNow) {
        configuration = new
        indexApps()
        for key in Array(devices.keys) {
            if app(named: key.app) == nil {
                forget(key, now: now)
            } else {
                expire(key, now: now)
            }
        }
    }

    mutating func forget(_ key: DeviceKey, now: LiveNow) {
        endSession(key, reason: "app_removed", deviceStop: .tokenGone, now: now)
        dropPresence(key, now: now)
        for viewer in devices[key].map({ Array($0.viewers.keys) }) ?? [] { removeViewer(key, viewer: viewer, reason: "app_removed", now: now) }
        if let held = devices[key]?.heldNext { release(held, Self.unknownAppKey) }
        if let token = devices[key]?.presence?.token { tokens[token] = nil }
        devices[key] = nil
    }

    // MARK: - What the outside may read

    /// The app an `Apsio-App-Key` names, if any.
    package func app(forKey key: String?) -> HubApp? {
        key.flatMap { appsByKey[$0] }.map { configuration.apps[$0] }
    }

    package func app(named name: String) -> HubApp? {
        appsByName[name].map { configuration.apps[$0] }
    }

    /// Whether the device holds a token now.
    package func hasPresence(_ key: DeviceKey) -> Bool { devices[key]?.presence != nil }
    package func isInSession(_ key: DeviceKey) -> Bool { devices[key]?.session != nil }
    package func viewerCount(_ key: DeviceKey) -> Int { devices[key]?.viewers.count ?? 0 }
    package var heldRequestCount: Int { holds.count }

    /// The audit entries the hub's steps wrote since the last call, for the caller to keep.
    package mutating func takeAudit() -> [AuditEntry] {
        defer { audit = [] }
        return audit
    }

    mutating func record(_ entry: AuditEntry) { audit.append(entry) }

    /// The users watching the device now, for the audit.
    func watchers(_ key: DeviceKey) -> [String] {
        (devices[key]?.viewers.values.map(\.identity.user) ?? []).sorted()
    }

    /// The answers of held requests released since the last call, for the caller to deliver.
    package mutating func takeReleases() -> [HubRelease] {
        defer { releases = [] }
        return releases
    }

    /// The earliest moment something is due on the hub's own: a hold's end, a session's end or
    /// silence, a presence, a viewer or a command running out.
    package var nextDeadline: MonotonicInstant? {
        var earliest = holds.values.map(\.until).min()
        func consider(_ instant: MonotonicInstant?) {
            guard let instant else { return }
            earliest = min(earliest ?? instant, instant)
        }
        for device in devices.values {
            // Presence and commands last through their instant and go just after it.
            if let presence = device.presence { consider(presence.expires(limits: limits) + .milliseconds(1)) }
            if let session = device.session {
                consider(session.lastActivity + limits.silentSessionTimeout)
                consider(session.untilMono)
                if device.heldNext != nil {
                    for command in device.commands where !command.resolved {
                        consider(command.lastSentAt.map { $0 + backendLimits.commandRedelivery })
                    }
                }
            }
            for viewer in device.viewers.values { consider(viewer.lastSeen + backendLimits.viewerTimeout) }
            for command in device.commands { consider(command.forgetAt(limits: limits) + .milliseconds(1)) }
        }
        return earliest.map { max($0, .origin) }
    }

    // MARK: - Time

    /// Applies everything due by `now`: held requests answered at the end of their hold (`next`
    /// with 204), sessions ended by `until`, silence or an expired tester, presences, viewers and
    /// commands forgotten.
    package mutating func tick(now: LiveNow) {
        for (id, hold) in holds where hold.until <= now.mono {
            devices[hold.key]?.heldNext = nil
            release(id, .noContent)
        }
        for key in Array(devices.keys) {
            expire(key, now: now)
        }
    }

    /// Ends or forgets what ran out for one device.
    mutating func expire(_ key: DeviceKey, now: LiveNow) {
        guard var device = devices[key] else { return }
        if let session = device.session, let presence = device.presence {
            if let until = session.untilMono, now.mono >= until {
                endSession(key, reason: "until", deviceStop: .stop("ended"), now: now)
            } else if now.mono >= session.lastActivity + limits.silentSessionTimeout {
                endSession(key, reason: "silent", deviceStop: .stop("ended"), now: now)
            } else if app(named: key.app)?.entry(presence.tester, nowUnixSeconds: now.wallUnixSeconds) == nil {
                endSession(key, reason: "tester_removed", deviceStop: .stop("tester_removed"), now: now)
            } else if device.heldNext != nil, !dueCommands(key, now: now).isEmpty {
                answerHeldNext(key, now: now)
            }
            device = devices[key] ?? device
        }
        if let presence = device.presence, now.mono > presence.expires(limits: limits) {
            dropPresence(key, now: now)
            device = devices[key] ?? device
        }
        for (id, viewer) in device.viewers where now.mono >= viewer.lastSeen + backendLimits.viewerTimeout {
            removeViewer(key, viewer: id, reason: "timeout", now: now)
        }
        guard var device = devices[key] else { return }
        device.commands.removeAll { now.mono > $0.forgetAt(limits: limits) }
        store(device, key)
    }

    // MARK: - Shared steps

    mutating func hold(_ key: DeviceKey, until: MonotonicInstant) -> HoldID {
        lastHoldNumber += 1
        let id = HoldID(value: lastHoldNumber)
        holds[id] = (key, until)
        return id
    }

    mutating func release(_ id: HoldID, _ reply: HubReply) {
        guard holds.removeValue(forKey: id) != nil else { return }
        releases.append(HubRelease(hold: id, reply: reply))
    }

    /// The caller of a held request went away: forget it without an answer.
    package mutating func cancelHold(_ id: HoldID) {
        guard let hold = holds.removeValue(forKey: id) else { return }
        if devices[hold.key]?.heldNext == id { devices[hold.key]?.heldNext = nil }
    }

    mutating func store(_ device: HubDevice, _ key: DeviceKey) {
        devices[key] = device.isEmpty ? nil : device
    }

    mutating func randomHex(bytes count: Int) -> String {
        Hex.lowercase(random.bytes(count))
    }

    mutating func nextSessionNumber() -> UInt64 {
        lastSessionNumber += 1
        return lastSessionNumber
    }

    /// An event for the device's viewers, numbered in the device's stream: told to nobody when
    /// nobody watches.
    mutating func broadcast(
        _ key: DeviceKey, type: String, liveDataOfSession: UInt64? = nil, now: LiveNow, _ fields: (inout JSONWriter) -> Void
    ) {
        guard devices[key]?.viewers.isEmpty == false else { return }
        lastEventSeq += 1
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("seq"); writer.uint(lastEventSeq)
        writer.key("type"); writer.string(type)
        writer.key("at"); writer.int(now.wallUnixMs)
        writer.key("app"); writer.string(key.app)
        writer.key("install"); writer.string(key.install)
        fields(&writer)
        writer.endObject()
        emitted.append(StreamEvent(
            seq: lastEventSeq, liveDataOfSession: liveDataOfSession, json: String(decoding: writer.bytes, as: UTF8.self), type: type))
    }

    /// The events the steps produced since the last call, oldest first.
    mutating func takeEmitted() -> [StreamEvent] {
        defer { emitted = [] }
        return emitted
    }

    /// How a session's end reaches the device that held it.
    enum DeviceStop: Equatable {
        /// `next` answers with this `stop`.
        case stop(String)
        /// The token is gone: a held `next` is answered 401.
        case tokenGone
    }

    /// Ends the device's live session: the device's held `next` learns why, and the viewers get
    /// `session_ended`, on which each instance drops the session's frames and results.
    mutating func endSession(_ key: DeviceKey, reason: String, deviceStop: DeviceStop, now: LiveNow) {
        guard var device = devices[key], let session = device.session else { return }
        var entry = AuditEntry(at: now, .sessionEnded, key)
        entry.reason = reason
        entry.durationMs = Self.milliseconds(now.mono - session.startedAt)
        entry.viewers = watchers(key)
        record(entry)
        device.session = nil
        device.lastEnd = HubSessionEnd(number: session.number, reason: reason, atUnixMs: now.wallUnixMs)
        if reason == SessionEndReason.until.rawValue || reason == SessionEndReason.sessionBytes.rawValue {
            device.capsReached = true
        }
        switch deviceStop {
        case .stop(let stop): device.lastStop = stop
        case .tokenGone: device.lastStop = nil
        }
        devices[key] = device
        if let held = device.heldNext {
            devices[key]?.heldNext = nil
            switch deviceStop {
            case .stop(let stop): release(held, .ok(nextBody(key, commands: [], stop: stop, now: now)))
            case .tokenGone: release(held, HubReply.error(401, "token", "the device token was replaced"))
            }
        }
        broadcast(key, type: "session_ended", now: now) { writer in
            writer.key("reason"); writer.string(reason)
        }
    }

    /// The device's presence ran out: its token goes, and its session with it.
    mutating func dropPresence(_ key: DeviceKey, now: LiveNow) {
        endSession(key, reason: "silent", deviceStop: .tokenGone, now: now)
        guard var device = devices[key], let presence = device.presence else { return }
        tokens[presence.token] = nil
        device.presence = nil
        devices[key] = device
        broadcast(key, type: "device_gone", now: now) { _ in }
        if let device = devices[key] { store(device, key) }
    }

    mutating func setToken(_ token: String, for key: DeviceKey, replacing old: String?) {
        if let old { tokens[old] = nil }
        tokens[token] = key
    }

    func deviceKey(forToken token: String?) -> DeviceKey? {
        guard let token, Hex.isLowercase(token, length: limits.deviceTokenHexLength) else { return nil }
        return tokens[token]
    }
}
