/// The device side of spec 16, one value per app: events in, actions out, no I/O and no clock.
///
/// The runtime tells it what changed (`handle(_:now:)`), carries out the actions it returns, and
/// calls `handle(.tick, now:)` at `nextDeadline`. Every MUST of 16.1–16.6 for the device is a rule
/// of this value, tested with a manual clock.
package struct LiveChannel: Sendable {
    package let limits: Limits
    private let compressor: any BodyCompressing
    private let bodies: any LiveBodyCoding

    private var gate = ChannelGateInputs()
    private var tester: TesterProof?
    private var identity: LiveIdentity?
    /// A hello answered 401: the app key is unknown, and the channel stays closed until the next launch.
    package private(set) var appKeyRefused = false

    /// The hello interval: the last hello answer's `interval_s`, else the policy's, else 30 s.
    package private(set) var interval: Duration
    private var policyInterval: Duration?
    private var answeredInterval: Duration?
    private var token: DeviceToken?
    private var capture = CaptureScope.everything

    private var helloNextAt: MonotonicInstant?
    private var helloInFlight: LiveRequestID?
    private var helloSentAt: MonotonicInstant?
    private var helloFailures = 0
    /// The moment the backend named (`BackendHold`): nothing of any kind goes before it. Kept when
    /// a session ends and when the channel closes and opens again; only another origin forgets it.
    private var heldUntil: MonotonicInstant?
    private var last401At: MonotonicInstant?

    private var session: LiveSession?
    package private(set) var dayBytes: DayBytes
    /// False from a failed write of the day's count until one succeeds (`.dayCountKept`).
    package private(set) var dayCountKept = true
    private var commands = CommandMemory()
    private var pendingResults: [String: PendingResult] = [:]
    private var raisedUntil: MonotonicInstant?

    private enum RequestKind: Sendable, Equatable {
        case hello(reason: HelloReason?)
        case next
        case frames
        case results(commandID: String)
    }
    /// A request in flight, with the token it carries: a 401 speaks of that token only, so one
    /// that answers a request sent with an earlier token (a slow `results` of the last session)
    /// says nothing of the token held now.
    private struct SentRequest: Sendable, Equatable {
        var kind: RequestKind
        var token: DeviceToken?
    }
    private var requests: [LiveRequestID: SentRequest] = [:]
    private var lastRequestNumber: UInt64 = 0
    package private(set) var viewers = 0

    package init(limits: Limits = .spec, compressor: some BodyCompressing, bodies: some LiveBodyCoding, dayBytes: DayBytes) {
        self.limits = limits
        self.compressor = compressor
        self.bodies = bodies
        self.dayBytes = dayBytes
        interval = limits.defaultHelloInterval
    }

    // MARK: - What the outside may read

    /// open, paused(reason) or closed, as 16.1 defines it.
    package var state: ChannelState {
        if appKeyRefused { return .closed }
        var inputs = gate
        inputs.testerMatches = tester != nil
        return ChannelGate.state(inputs)
    }

    package var isInSession: Bool { session != nil }
    package var holdsToken: Bool { token != nil }
    package var isLogLevelRaised: Bool { raisedUntil != nil }
    package var requestsInFlight: Set<LiveRequestID> { Set(requests.keys) }

    /// The earliest the next hello may go: its schedule, with a hello still in flight counted as
    /// answered with the interval, since the backend may have seen it.
    private var helloNotBefore: MonotonicInstant? {
        guard helloInFlight != nil, let sent = helloSentAt else { return helloNextAt }
        return max(helloNextAt ?? .origin, sent + interval)
    }

    /// What a channel started again for the same app and origin is told (`.recalled`).
    package var memory: LiveChannelMemory {
        var memory = LiveChannelMemory()
        memory.helloNotBefore = helloNotBefore
        memory.helloFailures = helloFailures
        memory.heldUntil = heldUntil
        memory.last401At = last401At
        memory.answeredInterval = answeredInterval
        memory.commands = commands.finishedOnly
        return memory
    }

    /// The earliest moment something is due; the runtime sends `.tick` then.
    package var nextDeadline: MonotonicInstant? {
        var deadlines: [MonotonicInstant] = []
        if wantsHello, helloInFlight == nil {
            deadlines.append(max(helloNextAt ?? .origin, heldUntil ?? .origin))
        }
        if let raisedUntil { deadlines.append(raisedUntil) }
        if let s = session {
            deadlines.append(s.until)
            if case .paused(_, let since, _) = s.phase { deadlines.append(since + limits.maxPausedTime) }
            // Only what can actually go then is a deadline: one that comes while nothing may be
            // sent would wake the runtime again and again for nothing.
            let resume = resumesAt(s)
            if case .paused(_, _, reported: false) = s.phase, token != nil, networkAllows {
                // The paused body owed since a backoff held it: it goes the moment that ends,
                // whether or not anything else wakes the channel then.
                deadlines.append(resume)
            }
            if s.isLive, token != nil {
                if s.nextInFlight == nil, let last = s.lastNextOpenedAt {
                    deadlines.append(max(last + limits.minNextSpacing, resume))
                }
                if s.framesInFlight == nil, let last = s.lastUploadAt {
                    if s.hasNewData {
                        deadlines.append(max(last + limits.minUploadSpacing, resume))
                    } else if s.metricsDirty {
                        let metricsAt = s.lastMetricsOnlyUploadAt.map { $0 + limits.minMetricsOnlySpacing } ?? .origin
                        deadlines.append(max(last + limits.minUploadSpacing, metricsAt, resume))
                    }
                }
                for pending in pendingResults.values where pending.inFlight == nil {
                    deadlines.append(max(pending.dueAt, resume))
                }
            }
        }
        return deadlines.min()
    }

    // MARK: - Events

    package mutating func handle(_ event: LiveEvent, now: LiveNow) -> [LiveAction] {
        var actions: [LiveAction] = []
        let heldBefore = heldUntil
        switch event {
        case .allowed(let allowed):
            gate.allowed = allowed
            if !allowed { endRaisedLevel(&actions) }
        case .consent(let consent):
            gate.consent = consent
            if !consent { endRaisedLevel(&actions) }
        case .killSwitch(let on):
            gate.killSwitch = on
            if on { endRaisedLevel(&actions) }
        case .foreground(let foreground):
            gate.foreground = foreground
        case .modes(let lowPower, let lowData, let dataSaver):
            gate.lowPower = lowPower
            gate.lowData = lowData
            gate.dataSaver = dataSaver
        case .tester(let proof):
            tester = proof
        case .identity(let identity):
            self.identity = identity
        case .policyInterval(let policyInterval):
            self.policyInterval = policyInterval
            interval = answeredInterval ?? policyInterval
        case .capture(let scope):
            capture = scope
            if !scope.isOn(.metrics) {
                session?.metrics = nil
                session?.metricsDirty = false
            }
            if !scope.isOn(.replay) {
                session?.wireframe = nil
                session?.wireframeDirty = false
            }
        case .originChanged:
            closeEverything(now: now, &actions)
            helloNextAt = nil
            helloFailures = 0
            heldUntil = nil
            last401At = nil
            // Another backend: what the old one said of the interval does not carry over.
            answeredInterval = nil
            interval = policyInterval ?? limits.defaultHelloInterval
        case .recalled(let memory):
            helloNextAt = memory.helloNotBefore
            helloFailures = memory.helloFailures
            heldUntil = memory.heldUntil
            last401At = memory.last401At
            answeredInterval = memory.answeredInterval
            interval = answeredInterval ?? policyInterval ?? limits.defaultHelloInterval
            commands = memory.commands
        case .answered(let id, let response):
            guard let sent = requests.removeValue(forKey: id) else { break }
            switch sent.kind {
            case .hello(let reason): helloAnswered(response, sentReason: reason, now: now, &actions)
            case .next: nextAnswered(id, response, sentWith: sent.token, now: now, &actions)
            case .frames: framesAnswered(id, response, sentWith: sent.token, now: now, &actions)
            case .results(let commandID): resultsAnswered(commandID, response, sentWith: sent.token, now: now, &actions)
            }
        case .record(let record):
            // Live lines are copies of the records the daemon writes (16.5): the same families and
            // the same floor, lowered to DEBUG while the level is raised.
            let raised = raisedUntil.map { now.mono < $0 } ?? false
            guard capture.writes(family: record.family, severityNumber: record.severityNumber, logLevelRaised: raised)
            else { break }
            guard var s = session, s.isLive else { break }
            s.pendingLines.append(LiveLine(record: record, limits: limits))
            if s.pendingLines.count > limits.maxLinesPerFrames {
                // Live data is never queued (16.4): past one body's worth, the oldest lines go, and
                // the next body says how many.
                let excess = s.pendingLines.count - limits.maxLinesPerFrames
                s.pendingLines.removeFirst(excess)
                s.droppedLines += excess
            }
            session = s
        case .metrics(let sample):
            guard session != nil, capture.isOn(.metrics) else { break }
            session?.metrics = sample
            session?.metricsDirty = true
        case .wireframe(let frame):
            guard capture.isOn(.replay), let s = session, s.wireframe != frame else { break }
            session?.wireframe = frame
            session?.wireframeDirty = true
        case .commandFinished(let result):
            commands.finished(result, at: now.mono, keptFor: limits.commandMemory)
            queueResult(result, now: now)
        case .dayCountKept(let kept):
            dayCountKept = kept
        case .tick:
            break
        }
        evaluate(now: now, &actions)
        if heldUntil != heldBefore {
            actions.append(.held(untilUnixMs: heldUntil.map { now.advanced(by: $0 - now.mono).wallUnixMs }))
        }
        return actions
    }

    // MARK: - The rules, applied after every event

    private var wantsHello: Bool {
        state != .closed && !gate.lowData && !gate.dataSaver && identity != nil
    }

    private func helloReason(now: LiveNow) -> HelloReason? {
        if gate.foreground == .interrupted { return .inactive }
        if gate.lowPower { return .lowPower }
        if spentToday(now: now) >= limits.maxDayBytes { return .capped }
        return nil
    }

    /// The day's bytes as the caps see them. A count the runtime could not write would be lost to
    /// the next launch, so while it cannot be kept the whole day counts as spent: no session
    /// starts, the one running ends, and hellos say `capped`, until a write succeeds (16.3).
    private func spentToday(now: LiveNow) -> Int {
        dayCountKept ? dayBytes.bytes(on: now.utcDay) : limits.maxDayBytes
    }

    private var networkAllows: Bool { !gate.lowData && !gate.dataSaver }

    private mutating func evaluate(now: LiveNow, _ actions: inout [LiveAction]) {
        if let until = raisedUntil, now.mono >= until { endRaisedLevel(&actions) }
        commands.prune(at: now.mono)

        let channel = state
        guard channel != .closed else {
            closeEverything(now: now, &actions)
            return
        }

        if session != nil {
            followPause(channel, now: now, &actions)
            checkEnd(now: now, &actions)
        }
        if session != nil {
            driveSession(now: now, &actions)
            checkEnd(now: now, &actions)
        }
        sendDueResults(now: now, &actions)

        if wantsHello, helloInFlight == nil, let tester, let identity,
            now.mono >= max(helloNextAt ?? .origin, heldUntil ?? .origin)
        {
            // Each hello tries again to write a count that could not be kept; the answer comes as
            // `.dayCountKept`, so this hello still says `capped` and the next one may not.
            if !dayCountKept { actions.append(.saveDayBytes(dayBytes)) }
            let reason = helloReason(now: now)
            let id = newRequest(.hello(reason: reason), token: token)
            helloInFlight = id
            helloSentAt = now.mono
            let body = compressor.compress(bodies.hello(identity: identity, tester: tester, reason: reason))
            actions.append(.sendHello(id, body: body, token: token))
        }
    }

    /// Pause and resume follow the channel (16.3): one `paused` body when the network allows, then
    /// nothing, `next` included, until a `live` body says it resumed.
    private mutating func followPause(_ channel: ChannelState, now: LiveNow, _ actions: inout [LiveAction]) {
        guard var s = session else { return }
        switch (channel, s.phase) {
        case (.paused(let reason), .live):
            s.phase = .paused(reason, since: now.mono, reported: false)
            if let next = s.nextInFlight {
                s.nextInFlight = nil
                requests[next] = nil
                actions.append(.cancel([next]))
            }
        case (.paused(let reason), .paused(_, let since, let reported)):
            s.phase = .paused(reason, since: since, reported: reported)
        case (.open, .paused):
            s.phase = .live
            s.owesLiveBody = true
        default:
            break
        }
        session = s
    }

    private mutating func checkEnd(now: LiveNow, _ actions: inout [LiveAction]) {
        guard let s = session else { return }
        let inputs = SessionEndInputs(
            channelClosed: false, stop: s.stop, pausedFor: s.pausedFor(at: now.mono), remaining: s.until - now.mono,
            sessionBytes: s.bytes, dayBytes: spentToday(now: now))
        if let reason = SessionEnd.reason(inputs, limits: limits) {
            endSession(.reason(reason), now: now, &actions)
        }
    }

    private mutating func driveSession(now: LiveNow, _ actions: inout [LiveAction]) {
        guard let token, var s = session, now.mono >= resumesAt(s) else { return }
        switch s.phase {
        // A change of state is said at once, even while a data upload is still in flight.
        case .paused(let reason, let since, let reported):
            // Low Data Mode and Data Saver let it go only as they pause the session: this one body
            // is how the viewers learn why the stream stops (16.4 names `low_data` and
            // `data_saver` for it), and nothing follows it. Held then, it waits for the mode to
            // go off, as everything else does (docs/decisions.md).
            guard !reported, networkAllows || since == now.mono else { return }
            s.phase = .paused(reason, since: since, reported: true)
            session = s
            sendFrames(.paused, reason: reason.rawValue, token: token, now: now, &actions)
        case .live:
            if s.owesLiveBody {
                s.owesLiveBody = false
                session = s
                sendFrames(.live, reason: nil, token: token, now: now, &actions)
                s = session!
            }
            if s.nextInFlight == nil, !s.owesLiveBody,
                s.lastNextOpenedAt.map({ now.mono - $0 >= limits.minNextSpacing }) ?? true
            {
                let id = newRequest(.next, token: token)
                s.nextInFlight = id
                s.lastNextOpenedAt = now.mono
                session = s
                actions.append(.openNext(id, install: identity?.install ?? "", token: token))
            }
            if s.framesInFlight == nil, let last = s.lastUploadAt, now.mono - last >= limits.minUploadSpacing {
                let metricsOnlyDue = s.lastMetricsOnlyUploadAt.map { now.mono - $0 >= limits.minMetricsOnlySpacing } ?? true
                if s.hasNewData || (s.metricsDirty && metricsOnlyDue) {
                    if !s.hasNewData { session?.lastMetricsOnlyUploadAt = now.mono }
                    sendFrames(.live, reason: nil, token: token, now: now, &actions)
                }
            }
        }
    }

    /// Sends a `frames` body with what is pending, counting its compressed size.
    private mutating func sendFrames(
        _ state: FramesState, reason: String?, token: DeviceToken, now: LiveNow,
        _ actions: inout [LiveAction]
    ) {
        guard var s = session, let identity else { return }
        let lines = s.pendingLines.prefix(limits.maxLinesPerFrames)
        let body = compressor.compress(
            bodies.frames(
                install: identity.install, state: state, reason: reason, lines: lines, droppedLines: s.droppedLines,
                metrics: s.metricsDirty ? s.metrics : nil, wireframe: s.wireframeDirty ? s.wireframe : nil))
        s.pendingLines.removeAll(keepingCapacity: true)
        s.droppedLines = 0
        s.metricsDirty = false
        s.wireframeDirty = false
        s.lastUploadAt = now.mono
        let id = newRequest(.frames, token: token)
        s.framesInFlight = id
        s.bytes += body.count
        session = s
        countDayBytes(body.count, now: now, &actions)
        actions.append(.sendFrames(id, body: body, token: token))
    }

    private mutating func countDayBytes(_ count: Int, now: LiveNow, _ actions: inout [LiveAction]) {
        dayBytes.add(count, on: now.utcDay)
        actions.append(.saveDayBytes(dayBytes))
    }

    /// Ends the session. An `ended` body goes out "if it can" (16.3): never on `closed`, never
    /// without a token, never when the network does not allow it.
    private mutating func endSession(_ end: LiveSessionEnd, now: LiveNow, _ actions: inout [LiveAction]) {
        guard let s = session else { return }
        var cancelled: [LiveRequestID] = []
        if let next = s.nextInFlight { cancelled.append(next) }
        if end == .reason(.closed) || end == .tokenLost, let frames = s.framesInFlight { cancelled.append(frames) }
        for id in cancelled { requests[id] = nil }
        if !cancelled.isEmpty { actions.append(.cancel(cancelled)) }

        if case .reason(let reason) = end, reason != .closed, let token, networkAllows,
            now.mono >= resumesAt(s), let identity
        {
            let body = compressor.compress(
                bodies.frames(
                    install: identity.install, state: .ended, reason: reason.rawValue, lines: s.pendingLines.prefix(limits.maxLinesPerFrames),
                    droppedLines: s.droppedLines, metrics: nil, wireframe: nil))
            let id = newRequest(.frames, token: token)
            countDayBytes(body.count, now: now, &actions)
            actions.append(.sendFrames(id, body: body, token: token))
        }
        session = nil
        // Results not sent yet stay in the command memory: the command comes again and gets them.
        for (commandID, pending) in pendingResults where pending.inFlight == nil { pendingResults[commandID] = nil }
        actions.append(.sessionEnded(end))
        setViewers(0, &actions)
    }

    /// The channel closed (16.1): stop at once. Cancel everything in flight, send nothing more, drop the token.
    private mutating func closeEverything(now: LiveNow, _ actions: inout [LiveAction]) {
        if session != nil { endSession(.reason(.closed), now: now, &actions) }
        if !requests.isEmpty {
            actions.append(.cancel(requests.keys.sorted { $0.value < $1.value }))
            requests.removeAll()
        }
        // A hello cancelled on its way may have reached the backend: the next keeps the cadence
        // from it, as from one answered (an operator's `allow-live off` and `on` in a moment).
        helloNextAt = helloNotBefore
        helloInFlight = nil
        pendingResults.removeAll()
        token = nil
        setViewers(0, &actions)
    }

    private mutating func setViewers(_ count: Int, _ actions: inout [LiveAction]) {
        guard count != viewers else { return }
        viewers = count
        actions.append(.viewers(count))
    }

    private mutating func endRaisedLevel(_ actions: inout [LiveAction]) {
        guard raisedUntil != nil else { return }
        raisedUntil = nil
        actions.append(.restoreLogLevel)
    }

    private mutating func newRequest(_ kind: RequestKind, token: DeviceToken?) -> LiveRequestID {
        lastRequestNumber += 1
        let id = LiveRequestID(value: lastRequestNumber)
        requests[id] = SentRequest(kind: kind, token: token)
        return id
    }

    // MARK: - Answers

    private mutating func helloAnswered(
        _ response: LiveResponse, sentReason: HelloReason?, now: LiveNow, _ actions: inout [LiveAction]
    ) {
        helloInFlight = nil
        switch response {
        case .status(let code, let body, _) where (200..<300).contains(code):
            helloFailures = 0
            let answer = bodies.helloAnswer(body, limits: limits)
            answeredInterval = answer.interval
            interval = answer.interval
            helloNextAt = now.mono + interval
            switch (token, answer.token) {
            case (let held?, let given?) where held != given:
                // Another hello replaced the token: the session that held the old one is over.
                endSession(.tokenLost, now: now, &actions)
                token = given
            case (_, let given?):
                token = given
            case (.some, nil):
                // The tester no longer counts: drop the token, end at once, no `ended` body.
                token = nil
                endSession(.tokenLost, now: now, &actions)
            case (nil, nil):
                break
            }
            if session == nil, answer.viewers > 0, sentReason == nil, token != nil, state == .open,
                spentToday(now: now) < limits.maxDayBytes
            {
                session = LiveSession(startedAt: now.mono, viewers: answer.viewers, limits: limits)
                actions.append(.sessionStarted)
                setViewers(answer.viewers, &actions)
            }
        case .status(401, _, _):
            appKeyRefused = true
        case .status(let code, _, _) where code == 402 || code == 403:
            hold(response, now: now)
        case .status(_, _, let retryAfter):
            helloFailed(retryAfter: retryAfter, now: now)
            hold(response, now: now)
        case .failed:
            helloFailed(retryAfter: nil, now: now)
        }
    }

    /// The backend named a moment (`BackendHold`): no request of any kind before it, for this
    /// session and past its end. A later, shorter one does not bring it forward.
    private mutating func hold(_ response: LiveResponse, now: LiveNow) {
        guard let wait = BackendHold.wait(for: response, limits: limits) else { return }
        heldUntil = max(heldUntil ?? .origin, now.mono + wait)
    }

    /// No `next`, `frames` or `results` of `session` before this: its own backoff after a failure,
    /// or the backend's hold.
    private func resumesAt(_ session: LiveSession) -> MonotonicInstant {
        max(session.networkPausedUntil ?? .origin, heldUntil ?? .origin)
    }

    /// 429, 5xx, 3xx and failures: the next hello after `Retry-After`, at least `interval_s` later,
    /// backing off exponentially to 120 seconds while it keeps failing.
    private mutating func helloFailed(retryAfter: Duration?, now: LiveNow) {
        helloFailures += 1
        var backoff = interval
        for _ in 1..<min(helloFailures, 16) where backoff < limits.maxHelloBackoff { backoff = backoff * 2 }
        backoff = max(min(backoff, limits.maxHelloBackoff), interval)
        let wait = max(backoff, min(retryAfter ?? .zero, limits.maxRetryAfter))
        helloNextAt = now.mono + wait
    }

    private mutating func nextAnswered(
        _ id: LiveRequestID, _ response: LiveResponse, sentWith sentToken: DeviceToken?, now: LiveNow,
        _ actions: inout [LiveAction]
    ) {
        guard var s = session, s.nextInFlight == id else { return }
        s.nextInFlight = nil
        switch response {
        case .status(204, _, _):
            s.networkFailures = 0
            session = s
        case .status(let code, let body, _) where (200..<300).contains(code):
            s.networkFailures = 0
            let answer = bodies.nextAnswer(body, limits: limits)
            if let remaining = answer.remainingMs {
                // A viewer's renewal gives at most another session length: a backend cannot keep
                // the device live for longer at a time than the spec allows.
                let bounded = min(Duration.milliseconds(max(remaining, 0)), limits.sessionLength)
                s.until = now.mono + bounded
            }
            if let stop = answer.stop { s.stop = stop }
            session = s
            if let viewers = answer.viewers, answer.stop == nil { setViewers(viewers, &actions) }
            if answer.stop == nil {
                for command in answer.commands { serve(command, now: now, &actions) }
            }
        case .status(401, _, _):
            session = s
            tokenRefused(sentWith: sentToken, now: now, &actions)
        default:
            session = s
            livePause(response, now: now)
        }
    }

    private mutating func framesAnswered(
        _ id: LiveRequestID, _ response: LiveResponse, sentWith sentToken: DeviceToken?, now: LiveNow,
        _ actions: inout [LiveAction]
    ) {
        guard session?.framesInFlight == id else {
            // The `ended` body, or one sent before a session that is gone: a 401 there still means
            // the token it carried is gone, and a moment the backend names still holds what follows.
            if case .status(401, _, _) = response { tokenRefused(sentWith: sentToken, now: now, &actions) }
            hold(response, now: now)
            return
        }
        session?.framesInFlight = nil
        switch response {
        case .status(let code, _, _) where (200..<300).contains(code):
            session?.networkFailures = 0
        case .status(401, _, _):
            tokenRefused(sentWith: sentToken, now: now, &actions)
        default:
            // A lost `frames` body is lost; the viewers see a gap.
            livePause(response, now: now)
        }
    }

    /// During a live session, a failure of `next`, `frames` or `results` pauses all three: until
    /// the moment the backend named when it named one (which holds hellos too), else from 1 s,
    /// doubling up to `interval_s` while they keep failing.
    private mutating func livePause(_ response: LiveResponse, now: LiveNow) {
        // A moment named to a request of a session that has ended holds the hellos after it.
        let named = BackendHold.wait(for: response, limits: limits) != nil
        hold(response, now: now)
        guard var s = session else { return }
        s.networkFailures += 1
        guard !named else {
            session = s
            return
        }
        var wait = limits.liveRetryInitial
        for _ in 1..<min(s.networkFailures, 16) where wait < interval { wait = wait * 2 }
        s.networkPausedUntil = now.mono + min(wait, interval)
        session = s
    }

    /// A 401 from `next`, `frames` or `results` (16.4): end at once without an `ended` body, cancel
    /// `next`, drop the token, and say hello again — at once, unless this happened within the last
    /// `interval_s` already, so two senders sharing an install cannot take the session from each
    /// other in a loop.
    /// A 401 for a request sent with an earlier token is that token's, long dropped: it does not
    /// end the session that runs on the current one.
    private mutating func tokenRefused(sentWith sentToken: DeviceToken?, now: LiveNow, _ actions: inout [LiveAction]) {
        guard token != nil, sentToken == token else { return }
        token = nil
        endSession(.tokenLost, now: now, &actions)
        pendingResults.removeAll()
        if let last = last401At, now.mono - last < interval {
            // The hello keeps its regular schedule.
        } else {
            helloNextAt = now.mono
        }
        last401At = now.mono
    }

    // MARK: - Commands

    private mutating func serve(_ command: LiveCommand, now: LiveNow, _ actions: inout [LiveAction]) {
        if let kept = commands.result(for: command.id, at: now.mono) {
            // Run at most once: a repeated id gets the same result again.
            queueResult(kept, now: now)
            return
        }
        guard !commands.isRunning(command.id) else { return }
        guard let name = command.known else {
            finish(command, .refused, .error("unknown command"), now: now)
            return
        }
        switch name {
        case .raiseLogLevel:
            guard raisedUntil == nil else {
                finish(command, .refused, .error("the log level is already raised"), now: now)
                return
            }
            raisedUntil = now.mono + limits.raisedLogLevelDuration
            let untilMs = now.wallUnixMs + Int64(limits.raisedLogLevelDuration.components.seconds) * 1000
            actions.append(.raiseLogLevel(untilUnixMs: untilMs))
            actions.append(.notice(.raiseLogLevel))
            finish(command, .done, .until(unixMs: untilMs), now: now)
        case .screenshot where !capture.isOn(.replay):
            // 16.5: replay that is off stays off; a screenshot is a wireframe.
            finish(command, .refused, .error("process frames (replay) are off for this app"), now: now)
        case .diagnostics where !capture.isOn(CaptureFamily.logs):
            // The diagnostics record is a `logs` record, and a family that is off stays off.
            finish(command, .refused, .error("the logs family is off for this app"), now: now)
        case .screenshot, .diagnostics:
            commands.started(command.id)
            actions.append(.notice(name))
            actions.append(.runCommand(id: command.id, name: name))
        }
    }

    private mutating func finish(
        _ command: LiveCommand, _ outcome: CommandOutcome, _ result: CommandResultValue, now: LiveNow
    ) {
        let result = CommandResult(
            id: command.id, name: command.name, outcome: outcome, atUnixMs: now.wallUnixMs, result: result)
        commands.finished(result, at: now.mono, keptFor: limits.commandMemory)
        queueResult(result, now: now)
    }

    private mutating func queueResult(_ result: CommandResult, now: LiveNow) {
        guard session != nil, pendingResults[result.id]?.inFlight == nil else { return }
        pendingResults[result.id] = PendingResult(result: result, attempts: 0, dueAt: now.mono)
    }

    private mutating func sendDueResults(now: LiveNow, _ actions: inout [LiveAction]) {
        guard let token, let s = session, s.isLive, now.mono >= resumesAt(s), let identity else { return }
        for commandID in pendingResults.keys.sorted() {
            guard var pending = pendingResults[commandID], pending.inFlight == nil, now.mono >= pending.dueAt else {
                continue
            }
            // The one retry goes only with the token the first attempt used.
            if pending.attempts > 0, pending.sentWith != token {
                pendingResults[commandID] = nil
                continue
            }
            let body = compressor.compress(bodies.results(install: identity.install, result: pending.result))
            let id = newRequest(.results(commandID: commandID), token: token)
            pending.inFlight = id
            pending.attempts += 1
            pending.sentWith = token
            pendingResults[commandID] = pending
            session?.bytes += body.count
            countDayBytes(body.count, now: now, &actions)
            actions.append(.sendResults(id, body: body, token: token))
        }
    }

    private mutating func resultsAnswered(
        _ commandID: String, _ response: LiveResponse, sentWith sentToken: DeviceToken?, now: LiveNow,
        _ actions: inout [LiveAction]
    ) {
        guard var pending = pendingResults[commandID] else {
            // A result of a session that ended: its 401 may still be about the token held now.
            if case .status(401, _, _) = response { tokenRefused(sentWith: sentToken, now: now, &actions) }
            return
        }
        pending.inFlight = nil
        switch response {
        case .status(let code, _, _) where (200..<300).contains(code) || code == 409:
            // 409: a result for no command sent in the last 2 minutes. Kept, and not sent again.
            pendingResults[commandID] = nil
        case .status(401, _, _):
            pendingResults[commandID] = nil
            tokenRefused(sentWith: sentToken, now: now, &actions)
        case .status(let code, _, _) where code == 429 || code >= 500 || (300..<400).contains(code):
            retryOnce(&pending, commandID: commandID, now: now)
            livePause(response, now: now)
        case .failed:
            retryOnce(&pending, commandID: commandID, now: now)
            livePause(response, now: now)
        case .status:
            // 402 and 403 hold the channel as on any request; the result, like any other refused
            // one, is not sent again: the command comes again and gets it from memory.
            pendingResults[commandID] = nil
            hold(response, now: now)
        }
    }

    /// "Only a results body is sent once more, after the backoff": due at once, it goes when the
    /// pause its failure started ends, with the rest of the session.
    private mutating func retryOnce(_ pending: inout PendingResult, commandID: String, now: LiveNow) {
        guard pending.attempts < 2 else {
            pendingResults[commandID] = nil
            return
        }
        pending.dueAt = now.mono
        pendingResults[commandID] = pending
    }
}
