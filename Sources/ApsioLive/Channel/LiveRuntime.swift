package import ApsioPOSIX
package import ApsioCore
import ApsioJSON
import ApsioNet
import ApsioWire

/// Carries out one app's live channel: feeds the pure `LiveChannel` its events, performs the
/// actions it returns (requests, cancellations, commands, notices), and wakes it at its deadlines.
///
/// The tester proof and the device token live here and in the channel only, in memory; they
/// leave through the transport to `live.origin` and nowhere else.
package actor LiveRuntime {
    private var channel: LiveChannel
    private let clock: any AgentClock
    private let host: any LiveHost
    private let hashing: any SHA256Hashing
    private let makeTransport: @Sendable (LiveOrigin) -> any LiveTransport
    private let installationID: String

    private var origin: LiveOrigin?
    /// The last origin a policy named, kept while a policy names none.
    private var namedOrigin: LiveOrigin?
    private var transport: (any LiveTransport)?
    private var testers: [TesterEntry] = []
    /// `expires_at` of the entry this install matched: past it, the match is computed again.
    private var matchedExpiry: Int64?

    private var inFlight: [LiveRequestID: Task<Void, Never>] = [:]
    private var commandTasks: [String: Task<Void, Never>] = [:]
    private var timer: Task<Void, Never>?
    private var timerDeadline: MonotonicInstant?
    private var stopped = false
    /// What the channel this one replaces remembered, told to it once the first origin is known.
    private var recalled: LiveChannelMemory?
    /// Bumped each time the runtime has taken in an event and acted on it (requests started,
    /// answers handled, timers set): who waits for it to settle re-checks then.
    private nonisolated let activity = ChangeSignal()

    package init(
        installationID: String, limits: Limits = .spec, dayBytes: DayBytes, clock: any AgentClock,
        host: any LiveHost, hashing: any SHA256Hashing, compressor: any BodyCompressing = GzipBodyCompressor(),
        recalled: LiveChannelMemory? = nil,
        makeTransport: @escaping @Sendable (LiveOrigin) -> any LiveTransport
    ) {
        channel = LiveChannel(limits: limits, compressor: compressor, bodies: LiveBodies(), dayBytes: dayBytes)
        self.recalled = recalled
        self.installationID = installationID
        self.clock = clock
        self.host = host
        self.hashing = hashing
        self.makeTransport = makeTransport
    }

    // MARK: - What the daemon tells it

    package func send(_ event: LiveEvent) {
        guard !stopped else { return }
        let now = clock.now()
        refreshTesterMatch(now: now)
        perform(channel.handle(event, now: now), now: now)
    }

    /// The policy's `live` object changed: its origin (nil when the policy has none, or an invalid
    /// one) and its testers.
    /// `interval`: the policy's `live.interval_s`, the hello interval until a hello answer names one.
    package func configure(origin: LiveOrigin?, testers: [TesterEntry], interval: Duration? = nil) {
        guard !stopped else { return }
        if origin != self.origin {
            self.origin = origin
            transport = origin.map(makeTransport)
            // A policy without `live` closes the channel (no testers, below) and keeps what the
            // backend said of its pace: the same origin named again is the same backend, whose
            // cadence and `Retry-After` still hold. Only another origin starts afresh.
            if let origin, origin != namedOrigin {
                namedOrigin = origin
                send(.originChanged)
                if let memory = recalled {
                    recalled = nil
                    if memory.origin == origin { send(.recalled(memory)) }
                }
            }
        }
        if let interval { send(.policyInterval(interval)) }
        self.testers = origin == nil ? [] : testers
        matchTester(now: clock.now())
    }

    /// The daemon is stopping, or the app is: cancel everything in flight and send nothing more.
    /// Returns what a channel started again for the same app should recall (nil without an origin).
    @discardableResult
    package func stop() -> LiveChannelMemory? {
        guard !stopped else { return nil }
        var memory = channel.memory
        memory.origin = namedOrigin
        perform(channel.handle(.allowed(false), now: clock.now()), now: clock.now())
        stopped = true
        timer?.cancel()
        timer = nil
        for task in inFlight.values { task.cancel() }
        inFlight.removeAll()
        for task in commandTasks.values { task.cancel() }
        commandTasks.removeAll()
        activity.notify()
        return namedOrigin == nil ? nil : memory
    }

    // MARK: - What the daemon may read

    package var state: ChannelState { channel.state }
    package var viewers: Int { channel.viewers }
    package var isInSession: Bool { channel.isInSession }
    package var isLogLevelRaised: Bool { channel.isLogLevelRaised }
    package var requestsInFlight: Int { inFlight.count }
    package var dayBytes: DayBytes { channel.dayBytes }

    // MARK: - Tester match (16.1)

    private func matchTester(now: LiveNow) {
        let proof = TesterMatcher.match(
            entries: testers, installationID: installationID, nowUnixSeconds: now.wallUnixSeconds, hashing: hashing)
        matchedExpiry = proof.flatMap { proof in testers.first { $0.id == proof.entryID }?.expiresAt }
        perform(channel.handle(.tester(proof), now: now), now: now)
    }

    /// An entry is ignored once its `expires_at` has passed: checked on every event, computed again
    /// only then.
    private func refreshTesterMatch(now: LiveNow) {
        if let expiry = matchedExpiry, now.wallUnixSeconds > expiry { matchTester(now: now) }
    }

    // MARK: - Actions

    private func perform(_ actions: [LiveAction], now: LiveNow) {
        // Whether the last count this list asked to keep was written. A body counted after a
        // failed write is not sent: the backend never gets bytes the disk does not count, so no
        // restart can spend them again. Its request is answered as failed, as a lost body is.
        var countKept: Bool?
        for action in actions {
            switch action {
            case .sendHello(let id, let body, let token):
                start(id, LiveHTTPRequest(method: .post, path: "/v1/live/hello", gzipBody: body, token: token))
            case .openNext(let id, let install, let token):
                let path = "/v1/live/next?install=" + Self.percentEncoded(install)
                start(id, LiveHTTPRequest(method: .get, path: path, gzipBody: nil, token: token))
            case .sendFrames(let id, _, _) where countKept == false, .sendResults(let id, _, _) where countKept == false:
                deliverLater(id, .failed)
            case .sendFrames(let id, let body, let token):
                start(id, LiveHTTPRequest(method: .post, path: "/v1/live/frames", gzipBody: body, token: token))
            case .sendResults(let id, let body, let token):
                start(id, LiveHTTPRequest(method: .post, path: "/v1/live/results", gzipBody: body, token: token))
            case .cancel(let ids):
                for id in ids { inFlight.removeValue(forKey: id)?.cancel() }
            case .runCommand(let id, let name):
                run(command: id, name: name)
            case .notice(let name):
                host.live(.notice(name))
            case .viewers(let count):
                host.live(.viewers(count))
            case .saveDayBytes(let bytes):
                countKept = host.keep(bytes)
            case .raiseLogLevel(let until):
                host.live(.logLevel(raisedUntilUnixMs: until))
            case .restoreLogLevel:
                host.live(.logLevel(raisedUntilUnixMs: nil))
            case .sessionStarted:
                host.live(.sessionStarted)
            case .sessionEnded(let end):
                host.live(.sessionEnded(end))
            case .held(let until):
                host.live(.held(untilUnixMs: until))
            }
        }
        if let countKept, countKept != channel.dayCountKept {
            perform(channel.handle(.dayCountKept(countKept), now: now), now: now)
        }
        reschedule(now: now, madeProgress: !actions.isEmpty)
        activity.notify()
    }

    private func start(_ id: LiveRequestID, _ request: LiveHTTPRequest) {
        guard let transport else {
            // No origin: the channel is closed and asks for nothing; answer as a failure if it did.
            deliverLater(id, .failed)
            return
        }
        inFlight[id] = Task { [weak self] in
            let response: LiveResponse
            do {
                response = try await transport.send(request)
            } catch {
                return  // Cancelled: the channel has moved on and expects no answer.
            }
            await self?.answered(id, response)
        }
    }

    private func deliverLater(_ id: LiveRequestID, _ response: LiveResponse) {
        inFlight[id] = Task { [weak self] in await self?.answered(id, response) }
    }

    private func answered(_ id: LiveRequestID, _ response: LiveResponse) {
        guard inFlight.removeValue(forKey: id) != nil else { return }
        send(.answered(id, response))
    }

    private func run(command id: String, name: LiveCommandName) {
        let host = self.host
        let clock = self.clock
        commandTasks[id] = Task { [weak self] in
            let result: JSONValue?
            switch name {
            case .screenshot:
                result = await host.screenshot().map { .object(["wireframe": $0]) }
            case .diagnostics:
                result = await host.diagnostics(commandID: id)
            case .raiseLogLevel:
                result = nil  // Served by the channel itself; never handed out.
            }
            let outcome: CommandOutcome = result == nil ? .failed : .done
            let finished = CommandResult(
                id: id, name: name.rawValue, outcome: outcome, atUnixMs: clock.now().wallUnixMs,
                result: result.map { .encoded(JSONWriter.encode($0)) } ?? .error("the command could not be carried out"))
            await self?.commandFinished(finished)
        }
    }

    private func commandFinished(_ result: CommandResult) {
        commandTasks[result.id] = nil
        send(.commandFinished(result))
    }

    // MARK: - Waking at deadlines

    private func reschedule(now: LiveNow, madeProgress: Bool) {
        guard !stopped else { return }
        guard var deadline = channel.nextDeadline else {
            timer?.cancel()
            timer = nil
            timerDeadline = nil
            return
        }
        // A deadline already past that produced nothing would wake the runtime in a loop; the
        // channel does not name such deadlines, and this floor keeps a mistake from burning a core.
        if !madeProgress, deadline <= now.mono { deadline = now.mono + .milliseconds(50) }
        guard deadline != timerDeadline || timer == nil else { return }
        timer?.cancel()
        timerDeadline = deadline
        let clock = self.clock
        timer = Task { [weak self] in
            do {
                try await clock.sleep(until: deadline)
            } catch {
                return
            }
            await self?.timerFired(deadline)
        }
    }

    private func timerFired(_ deadline: MonotonicInstant) {
        guard timerDeadline == deadline else { return }
        timer = nil
        timerDeadline = nil
        send(.tick)
    }

    /// Query values: unreserved characters as they are, everything else percent-encoded.
    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out += "%"
                out.unicodeScalars.append(hex[Int(byte >> 4)])
                out.unicodeScalars.append(hex[Int(byte & 0x0F)])
            }
        }
        return out
    }
}

extension LiveRuntime: ChangeSource {
    /// The runtime changes each time it has acted on an event (a request started or answered, a
    /// timer set): a test waiting for it to settle re-checks then.
    package nonisolated func markChange() -> @Sendable () async throws -> Void { activity.markChange() }
}
