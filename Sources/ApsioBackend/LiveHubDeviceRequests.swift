package import ApsioCore
import ApsioJSON

/// The device's four requests (16.4): hello, next, frames and results.
extension LiveHub {
    /// `POST /v1/live/hello`. A hello whose tester does not count is answered `viewers` 0 with no
    /// token and changes nothing (16.7); one that counts keeps, renews or replaces the token.
    package mutating func hello(appKey: String?, token: String?, body: [UInt8], now: LiveNow) -> HubReply {
        guard let app = app(forKey: appKey) else { return Self.unknownAppKey }
        guard let hello = JSONBody.object(body) else { return Self.unreadable("the hello is not a JSON object") }
        guard let install = hello["install"]?.stringValue, !install.isEmpty,
            install.utf8.count <= backendLimits.maxFieldBytes
        else { return Self.unreadable("the hello has no usable install") }

        // The proof is read here and nowhere else; it is not stored (16.7).
        guard
            let tester = hello["tester"]?.stringValue,
            TesterCheck.counts(
                tester: tester, proof: hello["proof"]?.stringValue, entries: app.testers,
                nowUnixSeconds: now.wallUnixSeconds, hashing: hashing, limits: limits)
        else { return helloAnswer(viewers: 0, token: nil) }

        let key = DeviceKey(app: app.name, install: install)
        expire(key, now: now)
        var device = devices[key] ?? HubDevice()
        let sentToken = deviceKey(forToken: token) == key ? token : nil

        if let presence = device.presence, presence.token == sentToken {
            device.presence!.lastSeen = now.mono
        } else {
            // Replace: a hello without the current token, or with another, from anyone (16.4).
            if device.presence != nil, let session = device.session {
                if session.firstFramesAt != nil {
                    // Viewers must not see another party's frames without being told (16.7).
                    endSession(key, reason: "replaced", deviceStop: .tokenGone, now: now)
                } else {
                    // A hello retried after a lost answer: nobody saw anything, so nothing ends.
                    dropUnstartedSession(key)
                }
                device = devices[key] ?? device
            }
            let newToken = randomHex(bytes: limits.deviceTokenBytes)
            setToken(newToken, for: key, replacing: device.presence?.token)
            device.presence = HubPresence(
                token: newToken, tester: tester, interval: configuration.interval, lastSeen: now.mono, model: "",
                os: "", release: "", lastHelloUnixMs: now.wallUnixMs)
        }
        let maxField = backendLimits.maxFieldBytes
        let cut = { (name: String) -> String? in hello[name]?.stringValue.map { UTF8Cut.cut($0, maxBytes: maxField) } }
        device.presence!.tester = tester
        device.presence!.interval = configuration.interval
        device.presence!.session = cut("session")
        device.presence!.model = cut("model") ?? ""
        device.presence!.os = cut("os") ?? ""
        device.presence!.release = cut("release") ?? ""
        switch hello["reason"] {
        case nil, .null?: device.presence!.reason = nil
        case .string(let reason)?: device.presence!.reason = UTF8Cut.cut(reason, maxBytes: 32)
        default: device.presence!.reason = "unknown"
        }
        device.presence!.lastHelloUnixMs = now.wallUnixMs
        let token = device.presence!.token
        let viewers = device.viewersForHello
        let starts = device.session == nil && device.presence!.reason == nil && viewers > 0
        devices[key] = device
        if starts { startSession(key, now: now) }
        return helloAnswer(viewers: viewers, token: token)
    }

    /// `GET /v1/live/next?install=`. Answers at once when there is something to say (commands, a
    /// stop), otherwise holds the request up to 25 s and then answers 204.
    package mutating func next(appKey: String?, token: String?, install: String?, now: LiveNow) -> HubStep {
        guard let app = app(forKey: appKey) else { return .reply(Self.unknownAppKey) }
        guard let install, !install.isEmpty else { return .reply(Self.unreadable("next needs ?install=")) }
        let key = DeviceKey(app: app.name, install: install)
        expire(key, now: now)
        guard deviceKey(forToken: token) == key, var device = devices[key] else { return .reply(Self.badToken) }
        device.presence!.lastSeen = now.mono
        guard device.session != nil else {
            devices[key] = device
            return .reply(.ok(nextBody(key, commands: [], stop: device.lastStop ?? "ended", now: now)))
        }
        device.session!.lastActivity = now.mono
        if let previous = device.heldNext {
            // One `next` at a time: an earlier one still held is over.
            device.heldNext = nil
            devices[key] = device
            release(previous, .noContent)
        }
        devices[key] = device
        let due = takeDueCommands(key, now: now)
        if !due.isEmpty { return .reply(.ok(nextBody(key, commands: due, stop: nil, now: now))) }
        let id = hold(key, until: now.mono + limits.nextHoldTime)
        devices[key]?.heldNext = id
        return .held(id)
    }

    /// `POST /v1/live/frames`. `wireBytes` is the body's size as sent (compressed), which counts
    /// toward the session's 10,000,000 bytes.
    package mutating func frames(appKey: String?, token: String?, body: [UInt8], wireBytes: Int, now: LiveNow) -> HubReply {
        guard let app = app(forKey: appKey) else { return Self.unknownAppKey }
        if let key = deviceKey(forToken: token) { expire(key, now: now) }
        guard let key = deviceKey(forToken: token), key.app == app.name else { return Self.badToken }
        guard let frames = JSONBody.object(body) else { return Self.unreadable("frames is not a JSON object") }
        guard frames["install"]?.stringValue == key.install else { return Self.badToken }
        guard let state = frames["state"]?.stringValue, ["live", "paused", "ended"].contains(state) else {
            return Self.unreadable("frames needs state live, paused or ended")
        }
        let reason = frames["reason"]?.stringValue.map { UTF8Cut.cut($0, maxBytes: 32) }
        let lines: [JSONValue]
        switch frames["lines"] {
        case nil, .null?: lines = []
        case .array(let items)?:
            guard items.count <= limits.maxLinesPerFrames else {
                return Self.unreadable("frames carries more than \(limits.maxLinesPerFrames) lines")
            }
            lines = items
        default: return Self.unreadable("frames' lines is not an array")
        }

        devices[key]!.presence!.lastSeen = now.mono
        guard var session = devices[key]!.session else { return .empty }
        session.lastActivity = now.mono
        session.bytes += max(wireBytes, 0)
        if session.firstFramesAt == nil {
            // The first frames starts the session's clock (16.3); until then until is null.
            session.firstFramesAt = now.mono
            session.untilMono = now.mono + limits.sessionLength
            session.untilUnixMs = now.wallUnixMs + Self.milliseconds(limits.sessionLength)
        }
        if state != "ended" {
            session.state = state
            session.pauseReason = state == "paused" ? reason : nil
        }
        devices[key]!.session = session

        broadcast(key, type: "frames", liveDataOfSession: session.number, now: now) { writer in
            writer.key("frames")
            writer.beginObject()
            writer.key("state"); writer.string(state)
            if let reason { writer.key("reason"); writer.string(reason) }
            writer.key("lines"); writer.value(.array(lines))
            if let dropped = frames["lines_dropped"]?.numberValue { writer.key("lines_dropped"); writer.double(dropped) }
            if let metrics = frames["metrics"], !metrics.isNull { writer.key("metrics"); writer.value(metrics) }
            if let wireframe = frames["wireframe"], !wireframe.isNull { writer.key("wireframe"); writer.value(wireframe) }
            writer.endObject()
        }

        if state == "ended" {
            endSession(key, reason: reason ?? "ended", deviceStop: .stop("ended"), now: now)
        } else if session.bytes >= limits.maxSessionBytes {
            endSession(key, reason: SessionEndReason.sessionBytes.rawValue, deviceStop: .stop("ended"), now: now)
        }
        return .empty
    }

    /// `POST /v1/live/results`: delivered to the viewers when it answers a command sent to this
    /// device in the last 2 minutes and the device is in a live session; 2xx but delivered nowhere
    /// when the session has ended; otherwise 409 and delivered nowhere (16.4).
    package mutating func results(appKey: String?, token: String?, body: [UInt8], wireBytes: Int, now: LiveNow) -> HubReply {
        guard let app = app(forKey: appKey) else { return Self.unknownAppKey }
        if let key = deviceKey(forToken: token) { expire(key, now: now) }
        guard let key = deviceKey(forToken: token), key.app == app.name else { return Self.badToken }
        guard let result = JSONBody.object(body) else { return Self.unreadable("results is not a JSON object") }
        guard result["install"]?.stringValue == key.install else { return Self.badToken }
        guard let id = result["id"]?.stringValue, let name = result["name"]?.stringValue,
            let outcome = result["outcome"]?.stringValue.flatMap(CommandOutcome.init(rawValue:)),
            let at = result["at"]?.numberValue, at.isFinite
        else { return Self.unreadable("results needs id, name, outcome (done, failed or refused) and at") }

        var device = devices[key]!
        device.presence!.lastSeen = now.mono
        guard let index = device.commands.firstIndex(where: {
            $0.id == id && $0.name.rawValue == name && $0.acceptsResult(now: now.mono, limits: limits)
        }) else {
            devices[key] = device
            return .error(409, "no_such_command", "no command with that id and name was sent to this device in the last 2 minutes")
        }
        if device.commands[index].resolved {
            // Sent once more after a lost answer: accepted, but the viewers have it already.
            devices[key] = device
            return .empty
        }
        device.commands[index].resolved = true
        var entry = AuditEntry(at: now, .result, key, user: device.commands[index].by)
        entry.commandID = id
        entry.commandName = name
        entry.outcome = outcome.rawValue
        record(entry)
        device.session?.bytes += max(wireBytes, 0)
        devices[key] = device
        // A result slower than its session goes to nobody: a screenshot never outlives its session
        // (16.7), and the viewers were told it ended. It is still answered 2xx and resolved, so the
        // device does not send it again.
        guard let session = device.session else { return .empty }
        broadcast(key, type: "result", liveDataOfSession: session.number, now: now) { writer in
            writer.key("result")
            writer.beginObject()
            writer.key("id"); writer.string(id)
            writer.key("name"); writer.string(name)
            writer.key("outcome"); writer.string(outcome.rawValue)
            writer.key("at"); writer.double(at)
            writer.key("result"); writer.value(result["result"] ?? .null)
            writer.endObject()
        }
        if session.bytes >= limits.maxSessionBytes {
            endSession(key, reason: SessionEndReason.sessionBytes.rawValue, deviceStop: .stop("ended"), now: now)
        }
        return .empty
    }

    // MARK: - Steps

    mutating func startSession(_ key: DeviceKey, now: LiveNow) {
        guard var device = devices[key], let presence = device.presence else { return }
        device.session = HubSession(number: nextSessionNumber(), now: now.mono)
        device.lastStop = nil
        devices[key] = device
        var entry = AuditEntry(at: now, .sessionStarted, key)
        entry.viewers = watchers(key)
        record(entry)
        broadcast(key, type: "session_started", now: now) { writer in
            writer.key("device")
            writer.beginObject()
            writer.key("model"); writer.string(presence.model)
            writer.key("os"); writer.string(presence.os)
            writer.key("release"); writer.string(presence.release)
            writer.key("tester"); writer.string(presence.tester)
            writer.endObject()
        }
    }

    /// A session no `frames` used yet goes with its token, unseen: its held `next` learns the
    /// token is gone, and no viewer is told anything ended.
    mutating func dropUnstartedSession(_ key: DeviceKey) {
        guard var device = devices[key], device.session != nil else { return }
        device.session = nil
        let held = device.heldNext
        device.heldNext = nil
        devices[key] = device
        if let held { release(held, Self.badToken) }
    }

    /// Commands a `next` answer carries now, marked as sent.
    mutating func takeDueCommands(_ key: DeviceKey, now: LiveNow) -> [PendingCommand] {
        guard var device = devices[key], let session = device.session else { return [] }
        var due: [PendingCommand] = []
        for index in device.commands.indices where due.count < limits.maxCommandsPerAnswer {
            guard device.commands[index].isDue(
                session: session.number, now: now.mono, limits: limits, redelivery: backendLimits.commandRedelivery)
            else { continue }
            device.commands[index].lastSentAt = now.mono
            device.commands[index].lastSentSession = session.number
            due.append(device.commands[index])
        }
        devices[key] = device
        return due
    }

    func dueCommands(_ key: DeviceKey, now: LiveNow) -> [PendingCommand] {
        guard let device = devices[key], let session = device.session else { return [] }
        return device.commands.filter {
            $0.isDue(session: session.number, now: now.mono, limits: limits, redelivery: backendLimits.commandRedelivery)
        }
    }

    /// Whether the device's held `next` should be answered now, and with what, when the request was
    /// held under `token`: another instance queued a command, ended the session, replaced the token
    /// or renewed the session (`answer`). Changes nothing when it should stay held.
    mutating func recheckHeldNext(_ key: DeviceKey, token: String?, answer: Bool, now: LiveNow) {
        guard let held = devices[key]?.heldNext else { return }
        expire(key, now: now)
        // Answered while expiring (a session's end, due commands).
        guard holds[held] != nil else { return }
        guard devices[key]?.heldNext == held, deviceKey(forToken: token) == key else {
            // The device is gone, or its token was replaced: it must say hello again.
            devices[key]?.heldNext = nil
            release(held, Self.badToken)
            return
        }
        if devices[key]?.session == nil {
            devices[key]?.heldNext = nil
            release(held, .ok(nextBody(key, commands: [], stop: devices[key]?.lastStop ?? "ended", now: now)))
        } else if answer || !dueCommands(key, now: now).isEmpty {
            answerHeldNext(key, now: now)
        }
    }

    /// Answers the device's held `next` now, with whatever it should hear.
    mutating func answerHeldNext(_ key: DeviceKey, now: LiveNow) {
        guard let held = devices[key]?.heldNext else { return }
        devices[key]?.heldNext = nil
        let due = takeDueCommands(key, now: now)
        release(held, .ok(nextBody(key, commands: due, stop: nil, now: now)))
    }

    func nextBody(_ key: DeviceKey, commands: [PendingCommand], stop: String?, now: LiveNow) -> [UInt8] {
        let device = devices[key]
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("commands")
        writer.beginArray()
        for command in commands {
            writer.beginObject()
            writer.key("id"); writer.string(command.id)
            writer.key("name"); writer.string(command.name.rawValue)
            writer.key("args"); writer.beginObject(); writer.endObject()
            writer.endObject()
        }
        writer.endArray()
        writer.key("viewers"); writer.int(Int64(device?.viewers.count ?? 0))
        writer.key("until")
        if let until = device?.session?.untilUnixMs { writer.int(until) } else { writer.null() }
        writer.key("remaining_ms")
        if let until = device?.session?.untilMono {
            writer.int(max(0, Self.milliseconds(until - now.mono)))
        } else {
            writer.null()
        }
        writer.key("stop")
        if let stop { writer.string(stop) } else { writer.null() }
        writer.endObject()
        return writer.bytes
    }

    func helloAnswer(viewers: Int, token: String?) -> HubReply {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("viewers"); writer.int(Int64(viewers))
        writer.key("interval_s"); writer.int(configuration.interval.components.seconds)
        if let token { writer.key("device_token"); writer.string(token) }
        writer.endObject()
        return .ok(writer.bytes)
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.wholeMilliseconds
    }

    static let unknownAppKey = HubReply.error(401, "app_key", "unknown app key")

    /// A new device when the store holds as many as it may (`BackendLimits.maxDevices`): tried
    /// again at the next interval.
    func tooManyDevices() -> HubReply {
        var reply = HubReply.error(503, "busy", "the backend keeps as many devices as it can")
        reply.retryAfterSeconds = Int(configuration.interval.components.seconds)
        return reply
    }
    static let badToken = HubReply.error(401, "token", "the device token is missing, wrong or replaced; say hello again")

    static func unreadable(_ message: String) -> HubReply { .error(400, "unreadable", message) }
}
