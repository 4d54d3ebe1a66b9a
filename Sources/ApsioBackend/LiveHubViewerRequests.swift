package import ApsioCore
import ApsioJSON
import ApsioWire

/// What signed-in people do: list present devices, join and leave a device's live view, renew
/// its session, send commands, and poll their stream. The HTTP layer has already checked that
/// the caller is a person (16.7); the hub checks who may send commands.
extension LiveHub {
    /// The devices present now whose tester still counts, as `GET /api/devices` lists them.
    package func devicesJSON(now: LiveNow) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("devices")
        writer.beginArray()
        for key in devices.keys.sorted(by: { ($0.app, $0.install) < ($1.app, $1.install) }) {
            guard let device = devices[key], let presence = device.presence,
                app(named: key.app)?.entry(presence.tester, nowUnixSeconds: now.wallUnixSeconds) != nil,
                now.mono <= presence.expires(limits: limits)
            else { continue }
            writer.beginObject()
            writer.key("app"); writer.string(key.app)
            writer.key("install"); writer.string(key.install)
            writer.key("tester"); writer.string(presence.tester)
            writer.key("model"); writer.string(presence.model)
            writer.key("os"); writer.string(presence.os)
            writer.key("release"); writer.string(presence.release)
            writer.key("session_id")
            if let session = presence.session { writer.string(session) } else { writer.null() }
            // The hello's reason says why it cannot start a session; none means in the foreground and able to.
            writer.key("foreground"); writer.string(presence.reason == "inactive" ? "interrupted" : "active")
            writer.key("reason")
            if let reason = presence.reason { writer.string(reason) } else { writer.null() }
            writer.key("last_hello"); writer.int(presence.lastHelloUnixMs)
            writer.key("viewers"); writer.int(Int64(device.viewers.count))
            writer.key("caps_reached"); writer.bool(device.capsReached)
            writer.key("session"); writeSession(device.session, now: now, into: &writer)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    /// `POST /api/devices/{install}/watch`: joins the device's viewers, which starts a session at
    /// its next hello without a reason; from a viewer already watching, renews the session's
    /// 30 minutes. Either way a viewer acted, so hellos count the viewers again after a cap (16.3).
    package mutating func watch(_ viewer: HubViewerIdentity, app: String?, install: String, now: LiveNow) -> HubReply {
        let key: DeviceKey
        var device: HubDevice
        switch testerDevice(app: app, install: install, now: now) {
        case .success(let found): (key, device) = found
        case .failure(let failure): return failure.reply
        }

        device.capsReached = false
        if device.viewers[viewer.signIn] != nil {
            device.viewers[viewer.signIn]!.lastSeen = now.mono
            if var session = device.session, session.untilMono != nil {
                session.untilMono = now.mono + limits.sessionLength
                session.untilUnixMs = now.wallUnixMs + Self.milliseconds(limits.sessionLength)
                device.session = session
            }
            devices[key] = device
            record(AuditEntry(at: now, .renewed, key, user: viewer.user))
            // The device keeps its end by `remaining_ms`: tell it now, not at the end of its hold.
            answerHeldNext(key, now: now)
            if let until = device.session?.untilUnixMs {
                broadcast(key, type: "renewed", now: now) { writer in
                    writer.key("until"); writer.int(until)
                    writer.key("by"); writer.string(viewer.user)
                }
            }
        } else {
            guard device.viewers.count < backendLimits.maxViewersPerDevice else {
                return .error(429, "too_many_viewers", "this device has as many viewers as it may have")
            }
            device.viewers[viewer.signIn] = HubViewer(identity: viewer, now: now.mono)
            devices[key] = device
            record(AuditEntry(at: now, .watch, key, user: viewer.user))
            broadcastViewers(key, now: now)
        }
        return watchReply(key, now: now)
    }

    /// `GET /api/devices/{install}/watch`: whether this person watches the device, its viewers and
    /// its session, without joining or renewing anything: a page that reloads learns where it
    /// stands before it acts, so a reload never renews a session behind the person's back.
    package mutating func watchState(_ viewer: HubViewerIdentity, app: String?, install: String, now: LiveNow) -> HubReply {
        let key: DeviceKey
        let device: HubDevice
        switch testerDevice(app: app, install: install, now: now) {
        case .success(let found): (key, device) = found
        case .failure(let failure): return failure.reply
        }
        return watchReply(key, watching: device.viewers[viewer.signIn] != nil, now: now)
    }

    /// `DELETE /api/devices/{install}/watch`: leaves. The last viewer leaving ends the session
    /// with `stop: viewers_left`.
    package mutating func leave(_ viewer: HubViewerIdentity, app: String?, install: String, now: LiveNow) -> HubReply {
        let key: DeviceKey
        switch resolve(app: app, install: install) {
        case .success(let found): key = found
        case .failure(let failure): return failure.reply
        }
        guard devices[key]?.viewers[viewer.signIn] != nil else { return Self.notWatching }
        removeViewer(key, viewer: viewer.signIn, reason: "left", now: now)
        return .ok(Array(#"{"watching":false}"#.utf8))
    }

    /// A sign-in ended: its viewer leaves every device.
    package mutating func signedOut(_ signIn: String, now: LiveNow) {
        for key in Array(devices.keys) where devices[key]?.viewers[signIn] != nil {
            removeViewer(key, viewer: signIn, reason: "signed_out", now: now)
        }
    }

    /// `POST /api/devices/{install}/commands` with `{"name": …}`: only from people allowed to
    /// change the project's settings, and only for a device in a live session (16.7).
    package mutating func command(
        _ viewer: HubViewerIdentity, app: String?, install: String, body: [UInt8], now: LiveNow
    ) -> HubReply {
        guard viewer.mayChangeSettings else {
            return .error(403, "forbidden", "only people allowed to change the project's settings can send commands")
        }
        let key: DeviceKey
        switch resolve(app: app, install: install) {
        case .success(let found): key = found
        case .failure(let failure): return failure.reply
        }
        expire(key, now: now)
        guard var device = devices[key], device.viewers[viewer.signIn] != nil else { return Self.notWatching }
        guard device.session != nil else {
            return .error(409, "not_live", "the device is not in a live session")
        }
        guard let request = JSONBody.object(body), let nameText = request["name"]?.stringValue else {
            return Self.unreadable("a command is {\"name\": …}")
        }
        let command = LiveCommand(id: "-", name: nameText, args: request["args"])
        guard let name = command.known else {
            return Self.unreadable("commands are screenshot, diagnostics and raise_log_level, with empty args")
        }
        let pending = device.commands.filter { !$0.resolved && now.mono < $0.createdAt + limits.commandMemory }
        guard pending.count < backendLimits.maxPendingCommandsPerDevice else {
            return .error(429, "too_many_commands", "this device has as many pending commands as it may have")
        }
        let id = randomHex(bytes: 16)
        device.commands.append(PendingCommand(id: id, name: name, by: viewer.user, createdAt: now.mono))
        var entry = AuditEntry(at: now, .command, key, user: viewer.user)
        entry.commandID = id
        entry.commandName = name.rawValue
        record(entry)
        device.viewers[viewer.signIn]!.lastSeen = now.mono
        devices[key] = device
        broadcast(key, type: "command", now: now) { writer in
            writer.key("command")
            writer.beginObject()
            writer.key("id"); writer.string(id)
            writer.key("name"); writer.string(name.rawValue)
            writer.key("by"); writer.string(viewer.user)
            writer.endObject()
        }
        answerHeldNext(key, now: now)
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("id"); writer.string(id)
        writer.key("name"); writer.string(name.rawValue)
        writer.endObject()
        return HubReply(status: 202, json: writer.bytes)
    }

    /// `GET /api/devices/{install}/stream`: a viewer polling shows they still watch. Nil when they
    /// do (the instance answers from its stream of the device's events); the refusal otherwise.
    /// The poll is renewed here only every `heartbeat` at most, so that polls do not each change
    /// the device's state.
    package mutating func streamPoll(
        _ viewer: HubViewerIdentity, app: String?, install: String, heartbeat: Duration = .zero, now: LiveNow
    ) -> HubReply? {
        let key: DeviceKey
        switch resolve(app: app, install: install) {
        case .success(let found): key = found
        case .failure(let failure): return failure.reply
        }
        expire(key, now: now)
        guard let seen = devices[key]?.viewers[viewer.signIn]?.lastSeen else { return Self.notWatching }
        if now.mono >= seen + heartbeat { devices[key]!.viewers[viewer.signIn]!.lastSeen = now.mono }
        return nil
    }

    // MARK: - Steps

    mutating func removeViewer(_ key: DeviceKey, viewer: String, reason: String, now: LiveNow) {
        guard var device = devices[key], let removed = device.viewers.removeValue(forKey: viewer) else { return }
        var entry = AuditEntry(at: now, .leave, key, user: removed.identity.user)
        entry.reason = reason
        record(entry)
        devices[key] = device
        if device.viewers.isEmpty, device.session != nil {
            endSession(key, reason: "viewers_left", deviceStop: .stop("viewers_left"), now: now)
        } else {
            broadcastViewers(key, now: now)
        }
        if let device = devices[key] { store(device, key) }
    }

    mutating func broadcastViewers(_ key: DeviceKey, now: LiveNow) {
        let count = devices[key]?.viewers.count ?? 0
        broadcast(key, type: "viewers", now: now) { writer in
            writer.key("viewers"); writer.int(Int64(count))
        }
    }

    func watchReply(_ key: DeviceKey, watching: Bool = true, now: LiveNow) -> HubReply {
        let device = devices[key]
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("watching"); writer.bool(watching)
        writer.key("app"); writer.string(key.app)
        writer.key("install"); writer.string(key.install)
        writer.key("viewers"); writer.int(Int64(device?.viewers.count ?? 0))
        writer.key("session"); writeSession(device?.session, now: now, into: &writer)
        writer.endObject()
        return .ok(writer.bytes)
    }

    func writeSession(_ session: HubSession?, now: LiveNow, into writer: inout JSONWriter) {
        guard let session else { writer.null(); return }
        writer.beginObject()
        writer.key("state"); writer.string(session.state)
        if let reason = session.pauseReason { writer.key("reason"); writer.string(reason) }
        writer.key("until")
        if let until = session.untilUnixMs { writer.int(until) } else { writer.null() }
        writer.key("remaining_ms")
        if let until = session.untilMono { writer.int(max(0, Self.milliseconds(until - now.mono))) } else { writer.null() }
        writer.key("bytes"); writer.int(Int64(session.bytes))
        writer.endObject()
    }

    struct Refusal: Error { let reply: HubReply }

    /// The device an install names: with `app`, exactly; without it, the one app whose device it is.
    func resolve(app: String?, install: String) -> Result<DeviceKey, Refusal> {
        if let app {
            guard self.app(named: app) != nil else { return .failure(Refusal(reply: .error(404, "no_such_app", "no app of that name"))) }
            return .success(DeviceKey(app: app, install: install))
        }
        let matches = devices.keys.filter { $0.install == install }
        switch matches.count {
        case 0: return .failure(Refusal(reply: Self.noTesterDevice))
        case 1: return .success(matches[0])
        default:
            return .failure(Refusal(reply: .error(409, "ambiguous", "several apps have that install; name one with ?app=")))
        }
    }

    /// The device an install names, when a tester of its app is present on it: its key and its
    /// state once expired sessions and viewers are let go, or the refusal to answer with.
    mutating func testerDevice(app: String?, install: String, now: LiveNow) -> Result<(DeviceKey, HubDevice), Refusal> {
        let key: DeviceKey
        switch resolve(app: app, install: install) {
        case .success(let found): key = found
        case .failure(let failure): return .failure(failure)
        }
        expire(key, now: now)
        guard let device = devices[key], let presence = device.presence,
            self.app(named: key.app)?.entry(presence.tester, nowUnixSeconds: now.wallUnixSeconds) != nil
        else { return .failure(Refusal(reply: Self.noTesterDevice)) }
        return .success((key, device))
    }

    static let noTesterDevice = HubReply.error(404, "no_device", "no tester's device with that install is present")
    static let notWatching = HubReply.error(404, "not_watching", "you are not watching that device; POST …/watch first")
}
