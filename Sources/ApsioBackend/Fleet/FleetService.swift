package import ApsioCore
import ApsioJSON
package import ApsioPOSIX
package import ApsioRedis
import ApsioNet
import ApsioWire
import Synchronization

/// The hub, over its stores (`FleetStores`): in this process for the demo and one instance, or in
/// Redis for a fleet of instances behind a load balancer sharing each device's state
/// (docs/fleet-backend.md). Every request on a device is one step: take the device's document
/// and the store's clock, run the rules (`LiveHub`, over that one device), write the result by
/// compare-and-set, and publish what the step told viewers and holders, in the same atomic call.
///
/// What stays here: held `next` requests and viewers' held stream polls (answered when a wake-up
/// or an event arrives on pub/sub, or at the end of their hold), and the recent events
/// (`FleetStreamRing`) of the devices whose viewers' polls land on this instance: it subscribes
/// to those devices' channels only, so each device's stream costs the instances that show it.
package actor FleetService: HubService {
    private var rules: LiveHub
    /// The Redis behind the stores; nil when they are in this process.
    private let redis: FleetStores.Redis?
    private let subscribing: ChannelSubscribing
    private let documents: any IndexedDocumentStore
    /// The people's sign-ins, under their token's hash (`FleetSignIn`).
    private let signIns: any ExpiringValueStore
    private var subscriber: (any ChannelSubscription)?
    private let clock: any AgentClock
    private let hashing = OpenSSLSHA256()
    private let limits: Limits
    package nonisolated let backendLimits: BackendLimits
    private nonisolated let appKeys: Mutex<Set<String>>
    /// Names this instance in documents (`nextHolder`); random, so a restarted instance is another.
    private let instance = Hex.lowercase(SecureRandom.bytes(8))

    private struct NextHold {
        let id: HoldID
        let token: String?
        let until: MonotonicInstant
        var lastCheck: MonotonicInstant
        let continuation: CheckedContinuation<HubReply, Never>
    }
    private var nextHolds: [DeviceKey: NextHold] = [:]

    private struct StreamHold {
        let number: UInt64
        let after: UInt64
        let until: MonotonicInstant
        let continuation: CheckedContinuation<HubReply, Never>
    }
    private var streamHolds: [DeviceKey: [String: StreamHold]] = [:]
    private var lastHoldNumber: UInt64 = 0
    private var rings: [DeviceKey: FleetStreamRing] = [:]
    /// The devices whose event channel this instance subscribes to: those with a ring, and one
    /// whose ring `serve` is beginning. Let go with the ring.
    private var subscriptions: Set<DeviceKey> = []
    /// Whether Redis keeps nothing on a disk, so that the devices' recent events may carry their
    /// live data (`FleetPersistence`); asked at start and every minute.
    private var keepsLiveData = false
    private var lastPersistenceCheck: MonotonicInstant?
    private var loggedPersistence = false
    /// Devices whose recent events are being read to fill a gap, with what was heard meanwhile.
    private var filling: [DeviceKey: [FleetEventMessage]] = [:]

    private var ingestLog: IngestLog
    private var passwordChecks = 0
    private var ticker: Task<Void, Never>?
    private var touchWriter: Task<Void, Never>?
    private var listener: Task<Void, Never>?
    private let epochWatch = FleetEpoch()
    private var lastEpochCheck: MonotonicInstant?
    private var reachable = true
    private var lastFailureLog: MonotonicInstant?
    /// When each device this instance last wrote next needs attention (Unix milliseconds): the
    /// sweep runs at the earliest of them, and over every device at least every `fullSweepInterval`
    /// for those whose instance is gone. At most `maxDueHere`; past it, the full sweeps find them.
    private var dueHere: [DeviceKey: Int64] = [:]
    private static let maxDueHere = 100_000
    private var nextFullSweepMs: Int64 = 0
    /// The last sweep failed, or may have stopped at its limit: the next tick sweeps again.
    private var moreDue = false
    private static let fullSweepInterval: Int64 = 5000
    private var failuresSinceLog = 0
    private var lastTouchFailureLog: MonotonicInstant?
    private let log: BackendLog

    private enum Heard: Sendable {
        case message(RedisSubscriber.Message)
        case subscribed
    }
    private let heard: AsyncStream<Heard>
    private let hear: AsyncStream<Heard>.Continuation

    private let accounts: AccountsBook

    package init(
        configuration: HubConfiguration, accounts: AccountsBook, redis: RedisSeeds, clock: any AgentClock = SystemAgentClock(),
        limits: Limits = .spec, backendLimits: BackendLimits = .default, program: String = "apsio-backend"
    ) {
        self.init(
            configuration: configuration, accounts: accounts, stores: .redis(redis, clock: clock, backendLimits: backendLimits),
            clock: clock, limits: limits, backendLimits: backendLimits, program: program)
    }

    package init(
        configuration: HubConfiguration, accounts: AccountsBook, stores: FleetStores, clock: any AgentClock = SystemAgentClock(),
        limits: Limits = .spec, backendLimits: BackendLimits = .default, program: String = "apsio-backend"
    ) {
        log = BackendLog(program: program)
        self.accounts = accounts
        rules = LiveHub(
            configuration: configuration, hashing: OpenSSLSHA256(), random: SystemRandomBytes(), limits: limits,
            backendLimits: backendLimits)
        self.clock = clock
        self.limits = limits
        self.backendLimits = backendLimits
        appKeys = Mutex(Set(configuration.apps.map(\.appKey)))
        redis = stores.redis
        documents = stores.documents
        signIns = stores.signIns
        subscribing = stores.subscribing
        ingestLog = IngestLog(capacity: backendLimits.maxIngestRequestsKept)
        // Bounded: a subscriber faster than this actor drops the oldest, which a gap event reports.
        (heard, hear) = AsyncStream.makeStream(of: Heard.self, bufferingPolicy: .bufferingNewest(16_384))
    }

    package nonisolated func isAppKey(_ text: String) -> Bool { appKeys.withLock { $0.contains(text) } }

    package func start() async {
        guard ticker == nil else { return }
        await checkPersistence(now: clock.now().mono)
        let hear = hear
        let copies = redis?.documents
        let instance = instance
        // The service's own tasks run on one of the server's loops, as its requests do: a
        // message heard, a tick or a write of touches wakes that loop's thread alone, where on the
        // task pool each woke the reactor's thread and then one of the pool's.
        let loop = Readiness.nextLoop()
        let subscriber = subscribing(
            loop,
            { message in
                // Another instance's change is forgotten here, in the subscriber's reading task, before
                // the message waits for the actor: a hello answered from the copy meanwhile
                // would decide on what the other instance has changed.
                if let copies, !FleetKeys.isEvents(message.channel), let wake = FleetWake(decoding: message.payload),
                    let by = wake.changedBy, by != instance
                {
                    copies.forgetCopy(FleetKeys.document(wake.device))
                }
                // A message this actor will never see may have been another's change: every copy goes.
                if case .dropped = hear.yield(.message(message)) { copies?.forgetCopies() }
            },
            {
                // What was announced while the subscription was away is lost: so are the copies.
                copies?.forgetCopies()
                hear.yield(.subscribed)
            })
        subscriber.subscribe(FleetKeys.allWakeChannels)
        subscriber.start()
        self.subscriber = subscriber
        let heard = heard
        listener = Task.detached(executorPreference: loop) { [weak self] in
            for await item in heard {
                guard let parsed = Self.parse(item) else { continue }
                // A notice of a change only (its copy is forgotten above) wakes nothing.
                if case .wake(let wake) = parsed, !wake.wakes { continue }
                await self?.handle(parsed)
            }
        }
        ticker = Task(executorPreference: loop) { await self.runTicker() }
        if let copies {
            let clock = clock
            touchWriter = Task(executorPreference: loop) { [weak self] in
                while !Task.isCancelled {
                    await copies.touchesWaiting()
                    // A moment's wait gathers the hellos of that moment into one write.
                    try? await clock.sleep(until: clock.now().mono + Self.touchDelay)
                    // Stopping: `stop()` writes them, in a task that is not being cancelled.
                    if Task.isCancelled { return }
                    // Not cancelled with this task: a write begun is finished, or the touches it
                    // took would be lost.
                    await Task(executorPreference: loop) { await self?.writeTouches() }.value
                }
            }
        }
    }

    /// How long a renewing hello answered from a copy waits to be written, with the others of
    /// that moment (`FleetHelloTouch`): a presence lasts two intervals and 25 s more.
    static let touchDelay: Duration = .milliseconds(250)

    private func writeTouches() async {
        guard let copies = redis?.documents else { return }
        let waiting = copies.touches.count
        do {
            _ = try await copies.writeTouches()
        } catch {
            // At most once every 10 s, as the 503s are told.
            let now = clock.now().mono
            if let last = lastTouchFailureLog, now < last + .seconds(10) { return }
            lastTouchFailureLog = now
            let described = (error as? RedisError)?.description ?? "\(error)"
            log.error(
                "\(waiting) hello(s) answered from this instance's copies were not written (\(described)); "
                    + "its next requests read Redis first")
        }
    }

    package func stop() async {
        ticker?.cancel()
        await ticker?.value
        ticker = nil
        touchWriter?.cancel()
        await touchWriter?.value
        touchWriter = nil
        // The hellos answered and not yet written go now, not with the process.
        await writeTouches()
        subscriber?.stop()
        await subscriber?.stopped()
        hear.finish()
        await listener?.value
        for hold in nextHolds.values { hold.continuation.resume(returning: .noContent) }
        nextHolds = [:]
        for holds in streamHolds.values { for hold in holds.values { hold.continuation.resume(returning: .noContent) } }
        streamHolds = [:]
        redis?.client.close()
    }

    /// A reload. Every instance reads the same files; each then looks at every device once, so
    /// a tester taken off the list ends its session now rather than at the device's next request.
    /// The devices of an app no longer served are forgotten as in memory (`app_removed`).
    package func reconfigure(_ configuration: HubConfiguration) async {
        rules.reconfigure(configuration, now: clock.now())
        appKeys.withLock { $0 = Set(configuration.apps.map(\.appKey)) }
        guard let members = try? await documents.members() else { return }
        for key in members.compactMap(FleetKeys.device(member:)) {
            let served = rules.app(named: key.app) != nil
            _ = try? await step(key, token: nil) { hub, now in
                if served { hub.expire(key, now: now) } else { hub.forget(key, now: now) }
            }
        }
    }

    // MARK: - One step on one device

    private struct Step<Result: Sendable>: Sendable {
        var result: Result
        var releases: [HubRelease]
        var device: HubDevice?
        var lastEventSeq: UInt64
        /// The document's `made`: which making of the device's state the numbers count in.
        var made: UInt64
        var joinedAfter: [String: UInt64]
        var existed: Bool
        var now: LiveNow
        /// The step ended a session and told nobody (its last viewer left, say): no end empties
        /// the device's recent events, which may hold its live data.
        var endedUntold = false
        /// What the step did to the document's place in the index: when it next needs attention
        /// (Unix milliseconds, on Redis's clock), or that it is gone.
        var index: IndexChange = .unchanged
    }

    private enum IndexChange: Sendable {
        case unchanged
        case due(Int64)
        case removed
    }

    /// Runs `run` on the device's state as Redis holds it, and writes what it changed. `token` is
    /// the device token the request presented: the rules see it as the device's only when its
    /// SHA-256 is the document's. `held` names a `next` this instance holds for the device, which
    /// the rules may answer. When another instance holds it and the rules would have answered it,
    /// the step is run again without it and the holder is woken to answer it itself, from the
    /// state as it is then (so commands are marked sent only by the instance that sends them).
    ///
    /// `touch` marks a hello: when it only renews the presence (`FleetHelloTouch`), the store may
    /// answer it from this instance's copy and write it a moment later.
    private func step<Result: Sendable>(
        _ key: DeviceKey, token: String?, held: HoldID? = nil, holding: Bool = false, touch: Bool = false,
        _ run: @escaping @Sendable (inout LiveHub, LiveNow) -> Result
    ) async throws -> Step<Result> {
        let rules = rules
        let instance = instance
        let hashing = hashing
        let limits = limits
        let backendLimits = backendLimits
        let tokenHash = token.map { Hex.lowercase(hashing.sha256(Array($0.utf8))) }
        let keepsLiveData = keepsLiveData
        let again: IndexedDocuments.TouchAgain? = touch ? { @Sendable touched, bytes, nowMs in Self.touchAgain(key, rules, touched, bytes, nowMs) } : nil
        // Copies are trusted while this instance hears every change the others announce.
        let trustCopy = subscriber?.isConnected ?? false
        let outcome = try await documents.update(
            FleetKeys.document(key), member: FleetKeys.member(key), touching: again, trustCopy: trustCopy
        ) { bytes, nowMs in
            let now = LiveNow(mono: MonotonicInstant(.milliseconds(nowMs)), wallUnixMs: nowMs)
            var document = bytes.flatMap(FleetDeviceDocument.init(decoding:)) ?? FleetDeviceDocument()
            if bytes == nil || document.lastEventSeq == 0 {
                // Numbers go on from Redis's clock, so a document made again never numbers an
                // event below one a viewer has already seen, nor a session as one before it.
                document.lastEventSeq = UInt64(max(nowMs, 1)) * 1000
                document.lastSessionNumber = max(document.lastSessionNumber, document.lastEventSeq)
                document.made = document.lastEventSeq
            }
            let holdingNext: LiveHub.NextHolding =
                if let held { .held(held) } else if !holding && document.nextHolder != nil { .elsewhere } else { .none }
            let stored = LiveHub.StoredDevice(
                device: document.device, tokenHash: document.tokenHash, lastEventSeq: document.lastEventSeq,
                lastSessionNumber: document.lastSessionNumber)
            let presented = token.flatMap { token in tokenHash.map { (token: token, hash: $0) } }
            let holdUntil = now.mono + limits.nextHoldTime
            var loaded = rules.loading(key, stored, presented: presented, next: holdingNext, holdUntil: holdUntil)
            var result = run(&loaded.hub, now)
            var releases = loaded.hub.takeReleases()
            var wake = false
            if let sentinel = loaded.sentinel, releases.contains(where: { $0.hold == sentinel }) {
                // The step would have answered the `next` another instance holds: run again
                // without it, and wake the holder to answer from the state as it is then.
                wake = true
                loaded = rules.loading(key, stored, presented: presented, next: .none, holdUntil: holdUntil)
                result = run(&loaded.hub, now)
                releases = loaded.hub.takeReleases()
            }
            var hub = loaded.hub
            let after = hub.unloaded(key)
            let device = after?.device
            var next = document
            next.device = device ?? HubDevice()
            next.tokenHash = after?.tokenHash
            next.lastEventSeq = hub.lastEventSeq
            next.lastSessionNumber = hub.lastSessionNumber
            if holding { next.nextHolder = instance }
            next.joinedAfter = [:]
            for id in next.device.viewers.keys { next.joinedAfter[id] = document.joinedAfter[id] ?? document.lastEventSeq }
            let snapshot = FleetDeviceSnapshot(device)
            let emitted = hub.takeEmitted()
            var publish: [IndexedDocuments.Publication] = emitted.map { event in
                let message = FleetEventMessage(
                    device: key, seq: event.seq, made: next.made, liveData: event.liveDataOfSession != nil, type: event.type,
                    snapshot: snapshot, json: Array(event.json.utf8))
                let encoded = message.encoded()
                // A session's live data is kept only in a Redis that stores nothing, and goes with
                // the session: its end empties the list (16.7).
                let standsIn = encoded.count > backendLimits.maxFleetRecentEventBytes || (message.liveData && !keepsLiveData)
                let kept = IndexedDocuments.Kept(
                    key: FleetKeys.recentEvents(key), message: standsIn ? message.standIn().encoded() : nil,
                    maxEntries: backendLimits.fleetRecentEvents, lifetime: backendLimits.fleetRecentLifetime,
                    clearFirst: event.type == "session_ended" || event.type == "device_gone")
                return IndexedDocuments.Publication(channel: FleetKeys.events(key), message: encoded, kept: kept)
            }
            // A change to what a hello decides on is told to the instances that may hold a copy.
            let announce = bytes != nil && document.helloView != next.helloView
            if wake || announce {
                let message = FleetWake(device: key, answer: wake, wakes: wake, changedBy: announce ? instance : nil)
                publish.append(.init(channel: FleetKeys.wake(bucket: FleetKeys.bucket(of: key)), message: message.encoded()))
            }
            let audit = hub.takeAudit()
            // Scored in microseconds, the entry's place in its step added, so the entries of one
            // step keep their order within their millisecond.
            let log = audit.isEmpty ? nil : IndexedDocuments.LogAppend(
                key: FleetKeys.audit(key), oldestScore: (nowMs - FleetDeviceDocument.ms(backendLimits.auditRetention)) * 1000,
                maxEntries: backendLimits.maxAuditEntriesPerDevice, lifetime: backendLimits.auditRetention,
                entries: audit.enumerated().map { index, entry in
                    (entry.atUnixMs * 1000 + Int64(min(index, 999)), entry.json(ref: Hex.lowercase(SecureRandom.bytes(6))))
                })
            var step = Step(
                result: result, releases: releases, device: device, lastEventSeq: next.lastEventSeq, made: next.made, joinedAfter: next.joinedAfter,
                existed: bytes != nil, now: now)
            if let ended = document.device.session?.number, device?.session?.number != ended {
                step.endedUntold = !emitted.contains { $0.type == "session_ended" }
            }
            guard let device, !device.isEmpty else {
                step.index = .removed
                return (.delete(publish: publish, log: log), step)
            }
            let encoded = next.encoded()
            if encoded == bytes, publish.isEmpty, log == nil { return (.keep, step) }
            let deadline = hub.deadlineAfterStep(key) ?? now.mono + .seconds(60)
            let lifetime = Self.lifetime(until: deadline, now: now.mono)
            step.index = .due(FleetDeviceDocument.ms(deadline))
            if touch, bytes != nil, publish.isEmpty, log == nil, releases.isEmpty, !holding, held == nil,
                document.isOnlyTouched(into: next, encoded: encoded)
            {
                return (.touch(.init(encoded, lifetime: lifetime, score: FleetDeviceDocument.ms(deadline))), step)
            }
            return (.write(encoded, lifetime: lifetime, score: FleetDeviceDocument.ms(deadline), publish: publish, log: log), step)
        }
        switch outcome.index {
        case .unchanged: break
        case .due(let ms): if dueHere.count < Self.maxDueHere || dueHere[key] != nil { dueHere[key] = ms }
        case .removed: dueHere[key] = nil
        }
        if outcome.endedUntold {
            // The live stream goes with its session (16.7), told or not; a failure here leaves it
            // to the list's own lifetime.
            try? await documents.dropKept(FleetKeys.recentEvents(key))
        }
        return outcome
    }

    /// How long the store keeps a document: Redis forgets it by itself some minutes after it
    /// needs attention, in case no instance is left to look at it.
    private static func lifetime(until deadline: MonotonicInstant, now: MonotonicInstant) -> Duration {
        max(deadline - now, .zero) + .seconds(300)
    }

    /// A renewing hello (`touched`) made again on the device's document as it now is, when another
    /// instance changed it before the hello was written: only the presence it renews, and only
    /// while the document still holds the token the hello presented.
    private static func touchAgain(
        _ key: DeviceKey, _ rules: LiveHub, _ touched: [UInt8], _ bytes: [UInt8]?, _ nowMs: Int64
    ) -> IndexedDocuments.Touch? {
        guard let hello = FleetDeviceDocument(decoding: touched), let presence = hello.device.presence, let bytes,
            let current = FleetDeviceDocument(decoding: bytes), current.device.presence != nil, current.tokenHash == hello.tokenHash
        else { return nil }
        let renewed = current.touched(by: presence)
        let encoded = renewed.encoded()
        guard encoded != bytes else { return nil }
        let now = MonotonicInstant(.milliseconds(nowMs))
        let stored = LiveHub.StoredDevice(
            device: renewed.device, tokenHash: renewed.tokenHash, lastEventSeq: renewed.lastEventSeq,
            lastSessionNumber: renewed.lastSessionNumber)
        let deadline = rules.loading(key, stored, presented: nil, next: .none, holdUntil: now).hub.deadlineAfterStep(key) ?? now + .seconds(60)
        return .init(encoded, lifetime: lifetime(until: deadline, now: now), score: FleetDeviceDocument.ms(deadline))
    }

    /// A step's failure as the device or viewer hears it: 503 with the client's backoff.
    private func unavailable(_ error: any Error) -> HubUnavailable {
        // A request let go (its client left, or another device of a held multi-stream answered
        // first) failed nothing: counting it would tell the operator Redis is away when it is not.
        if !(error is CancellationError) { noteFailure(error) }
        // Not the store away: full. The device is told so, and tries again at its interval.
        if error is MemoryIndexedDocuments.Full { return HubUnavailable(reply: rules.tooManyDevices()) }
        if case RedisError.unavailable(_, let retryIn) = error {
            let seconds = Int(retryIn.components.seconds) + (retryIn.components.attoseconds > 0 ? 1 : 0)
            return HubUnavailable(retryAfterSeconds: min(max(seconds, 1), Int(rules.configuration.interval.components.seconds)))
        }
        return HubUnavailable(retryAfterSeconds: 1)
    }

    /// Says why requests were answered 503: at most once every 10 s, with how many failed since,
    /// so an operator sees the cause (Redis away, too slow, a device too busy) without a flood.
    private func noteFailure(_ error: any Error) {
        failuresSinceLog += 1
        let now = clock.now().mono
        if let last = lastFailureLog, now < last + .seconds(10) { return }
        lastFailureLog = now
        let described = (error as? RedisError)?.description ?? (error as? RedisDocuments.UpdateError)?.description ?? "\(error)"
        log.error("\(failuresSinceLog) request(s) answered 503 since the last report: \(described)")
        failuresSinceLog = 0
    }

    private func reply<Result: Sendable>(
        _ key: DeviceKey, token: String?, touch: Bool = false, _ run: @escaping @Sendable (inout LiveHub, LiveNow) -> Result
    ) async -> Swift.Result<Step<Result>, HubUnavailable> {
        do { return .success(try await step(key, token: token, touch: touch, run)) } catch { return .failure(unavailable(error)) }
    }

    // MARK: - The device's side

    package func hello(appKey: String?, token: String?, body: [UInt8]) async -> HubReply {
        guard let app = rules.app(forKey: appKey), let install = JSONBody.object(body)?["install"]?.stringValue, !install.isEmpty,
            install.utf8.count <= backendLimits.maxFieldBytes
        else {
            // Refused before any state is read: the rules say why.
            var scratch = rules
            return scratch.hello(appKey: appKey, token: token, body: body, now: clock.now())
        }
        let key = DeviceKey(app: app.name, install: install)
        switch await reply(key, token: token, touch: true, { hub, now in hub.hello(appKey: appKey, token: token, body: body, now: now) }) {
        case .success(let step): return step.result
        case .failure(let failure): return failure.reply
        }
    }

    package func next(appKey: String?, token: String?, install: String?) async -> HubReply {
        guard let app = rules.app(forKey: appKey), let install, !install.isEmpty else {
            var scratch = rules
            guard case .reply(let reply) = scratch.next(appKey: appKey, token: token, install: install, now: clock.now()) else {
                return .noContent
            }
            return reply
        }
        let key = DeviceKey(app: app.name, install: install)
        let outcome: Step<HubStep>
        do {
            outcome = try await step(key, token: token, holding: true) { hub, now in
                hub.next(appKey: appKey, token: token, install: install, now: now)
            }
        } catch {
            return unavailable(error).reply
        }
        guard case .held = outcome.result else {
            if case .reply(let reply) = outcome.result { return reply }
            return .noContent
        }
        // The step's hub numbered its hold afresh; this instance's holds need numbers of their own.
        lastHoldNumber += 1
        let id = HoldID(value: lastHoldNumber)
        // One `next` per device at a time here: an earlier one still held is over.
        nextHolds.removeValue(forKey: key)?.continuation.resume(returning: .noContent)
        let now = clock.now().mono
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                nextHolds[key] = NextHold(
                    id: id, token: token, until: now + limits.nextHoldTime, lastCheck: now, continuation: continuation)
            }
        } onCancel: {
            Task { await self.abandonNext(key, id: id) }
        }
    }

    private func abandonNext(_ key: DeviceKey, id: HoldID) {
        guard nextHolds[key]?.id == id else { return }
        nextHolds.removeValue(forKey: key)?.continuation.resume(returning: .noContent)
    }

    /// Looks at a `next` held here again: answers it when the device should hear something.
    private func recheck(_ key: DeviceKey, answer: Bool) async {
        guard let hold = nextHolds[key] else { return }
        nextHolds[key]?.lastCheck = clock.now().mono
        let outcome: Step<Void>
        do {
            outcome = try await step(key, token: hold.token, held: hold.id) { hub, now in
                hub.recheckHeldNext(key, token: hold.token, answer: answer, now: now)
            }
        } catch {
            return  // Redis is away: the hold ends with its 204, or a later look answers it.
        }
        guard let release = outcome.releases.first(where: { $0.hold == hold.id }), nextHolds[key]?.id == hold.id else { return }
        nextHolds.removeValue(forKey: key)?.continuation.resume(returning: release.reply)
    }

    package func frames(appKey: String?, token: String?, body: [UInt8], wireBytes: Int) async -> HubReply {
        await bodyRequest(appKey: appKey, token: token, body: body) { hub, now in
            hub.frames(appKey: appKey, token: token, body: body, wireBytes: wireBytes, now: now)
        }
    }

    package func results(appKey: String?, token: String?, body: [UInt8], wireBytes: Int) async -> HubReply {
        await bodyRequest(appKey: appKey, token: token, body: body) { hub, now in
            hub.results(appKey: appKey, token: token, body: body, wireBytes: wireBytes, now: now)
        }
    }

    /// `frames` and `results` find their device by the body's `install` (the in-memory hub by
    /// the token): the token is then checked against the document's hash by the rules.
    private func bodyRequest(
        appKey: String?, token: String?, body: [UInt8], _ run: @escaping @Sendable (inout LiveHub, LiveNow) -> HubReply
    ) async -> HubReply {
        guard let app = rules.app(forKey: appKey) else { return LiveHub.unknownAppKey }
        guard let token, Hex.isLowercase(token, length: limits.deviceTokenHexLength) else { return LiveHub.badToken }
        // A body that is not JSON is unreadable (400), as in memory; the device keeps its token.
        guard let object = JSONBody.object(body) else { return LiveHub.unreadable("the body is not a JSON object") }
        guard let install = object["install"]?.stringValue, !install.isEmpty, install.utf8.count <= backendLimits.maxFieldBytes
        else { return LiveHub.badToken }
        switch await reply(DeviceKey(app: app.name, install: install), token: token, run) {
        case .success(let step): return step.result
        case .failure(let failure): return failure.reply
        }
    }

    /// Served from the configuration in memory: no Redis round trip, so the 304s most boxes get
    /// cost none, and a Redis outage does not stop policy refreshes.
    package func policy(appKey: String?, ifNoneMatch: String?) -> (reply: HubReply, etag: String?) {
        guard let app = rules.app(forKey: appKey) else { return (LiveHub.unknownAppKey, nil) }
        return BackendPolicy.reply(
            app: app, configuration: rules.configuration, ifNoneMatch: ifNoneMatch, nowUnixSeconds: clock.now().wallUnixSeconds,
            hashing: hashing)
    }

    /// This instance's development sink; a fleet routes `/v1/logs` to an OpenTelemetry collector.
    package func ingest(appKey: String?, body: [UInt8], encoding: OTLPEncoding) -> HubReply {
        guard let app = rules.app(forKey: appKey) else { return LiveHub.unknownAppKey }
        var json = body
        if encoding == .protobuf {
            do {
                json = try OTLPProtobufLogs.json(from: body)
            } catch {
                return LiveHub.unreadable("the body is not an OTLP/HTTP protobuf request: \(error)")
            }
        }
        guard JSONBody.object(json) != nil else { return LiveHub.unreadable("the body is not an OTLP/HTTP JSON object") }
        ingestLog.append(IngestedRequest(app: app.name, receivedUnixMs: clock.now().wallUnixMs, json: json))
        return .empty
    }

    package func ingested() -> (requests: [IngestedRequest], total: Int) { (ingestLog.requests, ingestLog.total) }

    // MARK: - Sign-in, in Redis so that a viewer's requests may land on any instance

    package func reservePasswordCheck() -> Bool {
        guard passwordChecks < backendLimits.maxConcurrentPasswordChecks else { return false }
        passwordChecks += 1
        return true
    }

    package func releasePasswordCheck() { passwordChecks -= 1 }

    package func signIn(_ account: Account) async -> Result<(token: String, id: String), HubUnavailable> {
        let token = Hex.lowercase(SecureRandom.bytes(32))
        let id = Hex.lowercase(SecureRandom.bytes(8))
        do {
            let key = signInKey(token)
            let nowMs = try await signIns.now(on: key)
            let record = FleetSignIn(
                id: id, user: account.user, role: account.role, passwordStamp: account.password.stamp, createdUnixMs: nowMs)
            try await signIns.set(key, record.encoded(), idle: backendLimits.signInIdleTimeout)
            return .success((token, id))
        } catch {
            return .failure(unavailable(error))
        }
    }

    package func signOut(token: String) async {
        guard let signIn = try? await findSignIn(token: token) else { return }
        try? await signIns.delete(signInKey(token))
        await leaveEverywhere(signIn.id)
    }

    package func viewer(token: String) async -> Result<HubViewerIdentity?, HubUnavailable> {
        do {
            guard let signIn = try await findSignIn(token: token) else { return .success(nil) }
            // The rights are the accounts' now, not the sign-in's: it outlives restarts in Redis.
            guard let account = accounts.account(named: signIn.user, passwordStamp: signIn.passwordStamp) else {
                await signOut(token: token)
                return .success(nil)
            }
            return .success(HubViewerIdentity(signIn: signIn.id, user: signIn.user, mayChangeSettings: account.role.mayChangeSettings))
        } catch {
            return .failure(unavailable(error))
        }
    }

    /// Sign-ins are kept under their token's hash: a removed person's, or one whose password was
    /// set again, end at their next request.
    package func accountsChanged() {}

    private func signInKey(_ token: String) -> String {
        FleetKeys.signIn(tokenHash: Hex.lowercase(hashing.sha256(Array(token.utf8))))
    }

    /// The sign-in, its idle lifetime renewed by the use; nil when unknown or past its lifetime.
    private func findSignIn(token: String) async throws -> FleetSignIn? {
        guard token.utf8.count == 64 else { return nil }
        let key = signInKey(token)
        let (bytes, nowMs) = try await signIns.renew(key, idle: backendLimits.signInIdleTimeout)
        guard let bytes, let signIn = FleetSignIn(decoding: bytes) else { return nil }
        guard nowMs < signIn.createdUnixMs + FleetDeviceDocument.ms(backendLimits.signInLifetime) else {
            try await signIns.delete(key)
            return nil
        }
        return signIn
    }

    /// A sign-in ended: its viewer leaves every device.
    private func leaveEverywhere(_ signIn: String) async {
        guard let members = try? await documents.members() else { return }
        for key in members.compactMap(FleetKeys.device(member:)) {
            _ = try? await step(key, token: nil) { hub, now in hub.signedOut(signIn, now: now) }
        }
    }

    // MARK: - The viewers' side

    package func devices() async -> HubReply {
        do {
            let keys = try await documents.members().compactMap(FleetKeys.device(member:))
            let (read, nowMs) = try await documents.read(keys.map(FleetKeys.document))
            var hub = rules
            for (key, bytes) in zip(keys, read) {
                guard let bytes, let document = FleetDeviceDocument(decoding: bytes) else { continue }
                hub.devices[key] = document.device
            }
            return .ok(hub.devicesJSON(now: LiveNow(mono: MonotonicInstant(.milliseconds(nowMs)), wallUnixMs: nowMs)))
        } catch {
            return unavailable(error).reply
        }
    }

    package func watch(_ viewer: HubViewerIdentity, app: String?, install: String) async -> HubReply {
        // The instance a person watches on is, behind a balancer that keeps each person on one,
        // the one their polls come to: it starts hearing the device now, so what the device
        // publishes before the first poll is heard here (with the live data, whatever Redis keeps).
        await viewerRequest(app: app, install: install, serves: true) { hub, now in
            hub.watch(viewer, app: app, install: install, now: now)
        }
    }

    package func watchState(_ viewer: HubViewerIdentity, app: String?, install: String) async -> HubReply {
        await viewerRequest(app: app, install: install) { hub, now in hub.watchState(viewer, app: app, install: install, now: now) }
    }

    package func leave(_ viewer: HubViewerIdentity, app: String?, install: String) async -> HubReply {
        let reply = await viewerRequest(app: app, install: install) { hub, now in
            hub.leave(viewer, app: app, install: install, now: now)
        }
        if let key = try? await resolve(app: app, install: install).get() { answerStreams(key) }
        return reply
    }

    package func command(_ viewer: HubViewerIdentity, app: String?, install: String, body: [UInt8]) async -> HubReply {
        await viewerRequest(app: app, install: install) { hub, now in
            hub.command(viewer, app: app, install: install, body: body, now: now)
        }
    }

    private func viewerRequest(
        app: String?, install: String, serves: Bool = false, _ run: @escaping @Sendable (inout LiveHub, LiveNow) -> HubReply
    ) async -> HubReply {
        let key: DeviceKey
        switch await resolve(app: app, install: install) {
        case .success(let found): key = found
        case .failure(let refusal): return refusal.reply
        }
        switch await reply(key, token: nil, run) {
        case .success(let step):
            if serves, step.result.status == 200 { await serve(key, read: step) }
            return step.result
        case .failure(let failure): return failure.reply
        }
    }

    private struct Refused: Error { let reply: HubReply }

    /// The device an install names; without `app`, the one app whose device it is.
    private func resolve(app: String?, install: String) async -> Result<DeviceKey, Refused> {
        if let app {
            guard rules.app(named: app) != nil else { return .failure(Refused(reply: .error(404, "no_such_app", "no app of that name"))) }
            return .success(DeviceKey(app: app, install: install))
        }
        let members: [String]
        do { members = try await documents.members() } catch { return .failure(Refused(reply: unavailable(error).reply)) }
        let matches = members.compactMap(FleetKeys.device(member:)).filter { $0.install == install }
        switch matches.count {
        case 0: return .failure(Refused(reply: LiveHub.noTesterDevice))
        case 1: return .success(matches[0])
        default: return .failure(Refused(reply: .error(409, "ambiguous", "several apps have that install; name one with ?app=")))
        }
    }

    /// A viewer's heartbeat is written at most this often, not on every poll.
    private static let heartbeatInterval: Duration = .seconds(10)

    package func stream(_ viewer: HubViewerIdentity, app: String?, install: String, after: UInt64?) async -> HubReply {
        let key: DeviceKey
        switch await resolve(app: app, install: install) {
        case .success(let found): key = found
        case .failure(let refusal): return Task.isCancelled ? .noContent : refusal.reply
        }
        let heartbeat = Self.heartbeatInterval
        let outcome: Step<HubReply?>
        do {
            outcome = try await step(key, token: nil) { hub, now in
                hub.streamPoll(viewer, app: app, install: install, heartbeat: heartbeat, now: now)
            }
        } catch {
            // Let go on its way to Redis, as a held poll is let go while it waits: it answers
            // nothing and acknowledges nothing, so its events wait for the next request.
            if error is CancellationError { return .noContent }
            return unavailable(error).reply
        }
        if let refusal = outcome.result { return refusal }
        // Only for a viewer who watches: nobody makes this instance subscribe to devices at will.
        await serve(key, read: outcome)
        let effectiveAfter = after ?? outcome.joinedAfter[viewer.signIn] ?? outcome.lastEventSeq
        let now = clock.now().mono
        var ring = rings[key] ?? FleetStreamRing(
            after: outcome.lastEventSeq, made: outcome.made, snapshot: FleetDeviceSnapshot(outcome.device), now: now)
        ring.observe(FleetDeviceSnapshot(outcome.device), atSeq: outcome.lastEventSeq, made: outcome.made, device: key, now: clock.now())
        rings[key] = ring
        if let previous = streamHolds[key]?.removeValue(forKey: viewer.signIn) {
            previous.continuation.resume(returning: streamReply(key, viewer: viewer.signIn, after: previous.after))
        }
        let waiting = ring.events(after: effectiveAfter)
        if !waiting.events.isEmpty || waiting.dropped > 0 {
            return streamReply(key, viewer: viewer.signIn, after: effectiveAfter)
        }
        lastHoldNumber += 1
        let number = lastHoldNumber
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                streamHolds[key, default: [:]][viewer.signIn] = StreamHold(
                    number: number, after: effectiveAfter, until: now + backendLimits.streamHoldTime, continuation: continuation)
            }
        } onCancel: {
            Task { await self.abandonStream(key, viewer: viewer.signIn, number: number) }
        }
    }

    /// This instance serves the device's viewers from now on (one watched, or polled, here): it
    /// subscribes to the device's events and begins its ring from the events Redis kept, read
    /// after the subscription was confirmed, so each event since `outcome` read the document is
    /// kept there or heard here, or both. What is older than the oldest kept is reported missing,
    /// not silently skipped.
    private func serve<Result: Sendable>(_ key: DeviceKey, read outcome: Step<Result>) async {
        await subscribe(key)
        guard rings[key] == nil else { return }
        let recent = (try? await documents.kept(FleetKeys.recentEvents(key)))?.compactMap(FleetEventMessage.init(decoding:)) ?? []
        guard rings[key] == nil else { return }
        rings[key] = FleetStreamRing(
            recent: recent, document: FleetDeviceSnapshot(outcome.device), atSeq: outcome.lastEventSeq, made: outcome.made,
            device: key, now: clock.now(), limits: backendLimits)
    }

    /// Subscribes to the device's events, and waits (a moment at most) for Redis to confirm
    /// before the ring is begun from the events Redis kept, so nothing published meanwhile is
    /// missed here.
    private func subscribe(_ key: DeviceKey) async {
        guard let subscriber else { return }
        let channel = FleetKeys.events(key)
        if subscriptions.insert(key).inserted { subscriber.subscribe([channel]) }
        guard rings[key] == nil else { return }
        _ = await subscriber.waitUntilConfirmed(channel, until: clock.now().mono + .seconds(2))
    }

    private func unsubscribe(_ key: DeviceKey) {
        guard subscriptions.remove(key) != nil else { return }
        subscriber?.unsubscribe([FleetKeys.events(key)])
    }

    private func abandonStream(_ key: DeviceKey, viewer: String, number: UInt64) {
        guard streamHolds[key]?[viewer]?.number == number else { return }
        streamHolds[key]?.removeValue(forKey: viewer)?.continuation.resume(returning: .noContent)
    }

    /// A stream answer from this instance's ring: the events after `after`, how many are missing,
    /// and who watches and the session as last heard.
    private func streamReply(_ key: DeviceKey, viewer: String, after: UInt64) -> HubReply {
        guard let ring = rings[key], ring.snapshot.viewers.contains(viewer) else {
            return .ok(Array(#"{"events":[],"watching":false}"#.utf8))
        }
        let (events, dropped) = ring.events(after: after)
        var writer = JSONWriter(reservingCapacity: events.reduce(256) { $0 + $1.json.count })
        writer.beginObject()
        writer.key("events")
        writer.beginArray()
        for event in events { writer.raw(event.json) }
        writer.endArray()
        writer.key("last_seq"); writer.uint(max(events.last?.seq ?? 0, after + UInt64(dropped)))
        writer.key("dropped"); writer.int(Int64(dropped))
        writer.key("watching"); writer.bool(true)
        writer.key("viewers"); writer.int(Int64(ring.snapshot.viewers.count))
        writer.key("session"); ring.snapshot.writeSession(into: &writer, nowUnixMs: clock.now().wallUnixMs)
        writer.endObject()
        return .ok(writer.bytes)
    }

    /// Answers the held stream polls of the device that have something to hear.
    private func answerStreams(_ key: DeviceKey, all: Bool = false) {
        guard let holds = streamHolds[key], let ring = rings[key] else { return }
        for (viewer, hold) in holds {
            let waiting = ring.events(after: hold.after)
            guard all || !waiting.events.isEmpty || waiting.dropped > 0 || !ring.snapshot.viewers.contains(viewer) else { continue }
            streamHolds[key]?.removeValue(forKey: viewer)
            hold.continuation.resume(returning: streamReply(key, viewer: viewer, after: hold.after))
        }
        if streamHolds[key]?.isEmpty == true { streamHolds[key] = nil }
    }

    package func audit(of device: DeviceKey) async -> Result<[[UInt8]], HubUnavailable> {
        do {
            return .success(try await documents.log(FleetKeys.audit(device), limit: backendLimits.maxAuditEntriesPerDevice))
        } catch {
            return .failure(unavailable(error))
        }
    }

    package func heldRequestCount() -> Int { nextHolds.count + streamHolds.values.reduce(0) { $0 + $1.count } }

    package func health() -> HubReply {
        let reachable = (redis?.client.isConnected ?? true) && subscriber?.isConnected == true
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("status"); writer.string(reachable ? "ok" : "degraded")
        writer.key("state"); writer.string(redis == nil ? "memory" : "redis")
        if redis != nil { writer.key("redis"); writer.string(reachable ? "connected" : "unavailable") }
        writer.key("held"); writer.int(Int64(heldRequestCount()))
        if let documents = redis?.documents {
            // The devices this instance answers from its own copy, and the hellos it answered so
            // and has yet to write (`FleetHelloTouch`).
            writer.key("copies"); writer.int(Int64(documents.cache.count))
            writer.key("unwritten_hellos"); writer.int(Int64(documents.touches.count))
        }
        writer.endObject()
        return HubReply(status: reachable ? 200 : 503, json: writer.bytes)
    }

    // MARK: - What other instances say

    /// What the subscriber heard, parsed off the actor: the actor only files each event in its
    /// ring and answers the polls waiting for it.
    private enum Parsed: Sendable {
        case event(FleetEventMessage)
        case wake(FleetWake)
        case subscribed
    }

    private static func parse(_ item: Heard) -> Parsed? {
        switch item {
        case .subscribed: return .subscribed
        case .message(let message) where FleetKeys.isEvents(message.channel):
            return FleetEventMessage(decoding: message.payload).map(Parsed.event)
        case .message(let message):
            return FleetWake(decoding: message.payload).map(Parsed.wake)
        }
    }

    private func handle(_ item: Parsed) {
        switch item {
        case .subscribed:
            // Messages published while the subscription was down are gone: look again at every
            // `next` held here. A ring hears of what it missed from the next message of its device
            // (a gap) or, if none follows, from the document its viewers' next poll reads
            // (`FleetStreamRing.catchUp`).
            for key in Array(nextHolds.keys) { Task { await self.recheck(key, answer: false) } }
        case .event(let event):
            // A device with no ring here yet is being subscribed to: the watch or poll doing it
            // begins the ring from the events Redis kept, which include this one.
            let now = clock.now()
            guard var ring = rings[event.device] else { return }
            if filling[event.device] != nil {
                filling[event.device]!.append(event)
                return
            }
            if ring.isAfterAGap(event) {
                // Missed (this instance's subscription was down a moment, or moved with a
                // failover): looked for among the events Redis kept before it is called a gap.
                filling[event.device] = [event]
                Task { await self.fill(event.device) }
                return
            }
            guard ring.receive(event, now: now.mono, nowUnixMs: now.wallUnixMs, limits: backendLimits) else { return }
            rings[event.device] = ring
            answerStreams(event.device)
        case .wake(let wake):
            // Looked at beside the stream, not before it: a wake-up's Redis round trip never
            // holds up the events behind it.
            guard wake.wakes, nextHolds[wake.device] != nil else { return }
            Task { await self.recheck(wake.device, answer: wake.answer) }
        }
    }

    /// Reads the device's recent events from Redis and files them in its ring with those heard
    /// meanwhile, in order: what the ring missed is there unless it is older than Redis keeps,
    /// and only that is reported missing (`gap`).
    private func fill(_ key: DeviceKey) async {
        filling[key] = filling[key] ?? []
        let recent = (try? await documents.kept(FleetKeys.recentEvents(key)))?.compactMap(FleetEventMessage.init(decoding:)) ?? []
        let heard = filling.removeValue(forKey: key) ?? []
        guard var ring = rings[key] else { return }
        let now = clock.now()
        let merged = (recent.filter { $0.device == key && !ring.isMadeAgain($0.made) } + heard).sorted { $0.seq < $1.seq }
        for message in merged { _ = ring.receive(message, now: now.mono, nowUnixMs: now.wallUnixMs, limits: backendLimits) }
        rings[key] = ring
        answerStreams(key)
    }

    // MARK: - Time

    private func runTicker() async {
        while !Task.isCancelled {
            do { try await clock.sleep(until: clock.now().mono + .milliseconds(500)) } catch { return }
            await tick()
        }
    }

    /// Ends local holds at their time, looks again at held `next`s every 5 s (a wake-up may have
    /// been lost), forgets idle rings, and applies what is due on any device (a session's silence
    /// or `until`, a presence, a viewer or a command running out): every instance sweeps, and the
    /// compare-and-set makes each change happen once.
    private func tick() async {
        let now = clock.now().mono
        for (key, hold) in nextHolds where now >= hold.until {
            nextHolds.removeValue(forKey: key)
            hold.continuation.resume(returning: .noContent)
        }
        for (key, hold) in nextHolds where now >= hold.lastCheck + .seconds(5) { _ = hold; await recheck(key, answer: false) }
        for (key, holds) in streamHolds {
            for (viewer, hold) in holds where now >= hold.until {
                streamHolds[key]?.removeValue(forKey: viewer)
                hold.continuation.resume(returning: streamReply(key, viewer: viewer, after: hold.after))
            }
            if streamHolds[key]?.isEmpty == true { streamHolds[key] = nil }
        }
        let nowUnixMs = clock.now().wallUnixMs
        for key in Array(rings.keys) {
            if rings[key]!.wantsRecentEvents(now: now), filling[key] == nil {
                rings[key]!.deferCatchUp(now: now)
                Task { await self.fill(key) }
            }
            if rings[key]!.catchUp(device: key, now: now, nowUnixMs: nowUnixMs) { answerStreams(key) }
            rings[key]!.trim(now: now, limits: backendLimits)
            if rings[key]!.isIdle, streamHolds[key] == nil, now >= rings[key]!.lastUsed + backendLimits.viewerTimeout {
                rings[key] = nil
                unsubscribe(key)
            }
        }
        await checkEpoch(now: now)
        await checkPersistence(now: now)
        await sweepWhenDue()
    }

    private func checkPersistence(now: MonotonicInstant) async {
        if let last = lastPersistenceCheck, now < last + .seconds(60) { return }
        lastPersistenceCheck = now
        // In this process nothing is ever written to a disk.
        guard let redis else {
            keepsLiveData = true
            return
        }
        let keeps = await FleetPersistence.keepsNothingOnDisk(redis.client)
        if !keeps, keepsLiveData || !loggedPersistence {
            log.error(
                "Redis at \(redis.seeds) may write its data to a disk (save or appendonly set, or CONFIG not answered): the "
                    + "devices' recent events are kept there without their live data (spec 16.7), so a viewer whose polls "
                    + "move to another instance is shown a gap for the frames it missed")
            loggedPersistence = true
        }
        keepsLiveData = keeps
    }

    /// Sweeps when a device this instance wrote needs attention, after a sweep that stopped at its
    /// limit, and every `fullSweepInterval` at least: an idle instance asks Redis every few seconds,
    /// not twice a second, and a deadline another instance wrote is met by that instance, or, when
    /// it is gone, by the next full sweep.
    private func sweepWhenDue() async {
        let byMs = clock.now().wallUnixMs + 5
        let ownDue = dueHere.values.min().map { $0 <= byMs } ?? false
        guard ownDue || moreDue || byMs >= nextFullSweepMs else { return }
        // The sweep's own steps put back what they write.
        dueHere = dueHere.filter { $0.value > byMs }
        nextFullSweepMs = byMs + Self.fullSweepInterval
        await sweep(by: byMs)
    }

    private func sweep(by byMs: Int64) async {
        let limit = 64
        let due: [String]
        // A sweep that failed is tried again at the next tick.
        moreDue = true
        do { due = try await documents.due(by: byMs, limit: limit) } catch { return }
        for member in due {
            guard let key = FleetKeys.device(member: member) else {
                try? await documents.forget(member: member)
                continue
            }
            do {
                let outcome = try await step(key, token: nil) { hub, now in hub.expire(key, now: now) }
                if !outcome.existed { try await documents.forget(member: member) }
            } catch {
                return
            }
        }
        moreDue = due.count >= limit
    }

    /// Says when Redis becomes unreachable and reachable again, and, when it came back without
    /// the fleet's state (`FleetEpoch`), tells this instance's viewers and devices: no instance
    /// will publish the end of the sessions it had.
    private func checkEpoch(now: MonotonicInstant) async {
        if let last = lastEpochCheck, now < last + .seconds(2) { return }
        lastEpochCheck = now
        // In this process the state is never lost nor older.
        guard let redis else { return }
        let client = redis.client
        let wentBack: Set<Int>
        do {
            wentBack = try await epochWatch.tick(client)
        } catch {
            if reachable { log.error("Redis at \(redis.seeds) is unavailable: \(error); device routes answer 503 until it is back") }
            reachable = false
            return
        }
        let wasAway = !reachable
        if wasAway { log.error("Redis at \(redis.seeds) is reachable again") }
        reachable = true
        var lost = epochWatch.takeLost()
        if !lost.isEmpty {
            log.error("Redis at \(redis.seeds) lost the fleet's state (restarted empty): sessions end, devices say hello again")
        }
        let back = wentBack.subtracting(lost)
        if !back.isEmpty {
            // Restored from an older snapshot, or a replica that missed the last writes: the
            // stale state goes (once, by whichever instance gets there first), as if Redis had
            // restarted empty.
            var forgot = false
            for bucket in back.sorted() {
                do { forgot = try await epochWatch.forgetStaleState(client, bucket: bucket) || forgot } catch {
                    for bucket in back { epochWatch.retryLater(bucket: bucket) }
                    return
                }
            }
            log.error(
                "Redis at \(redis.seeds) went back in time (an older snapshot, or a replica behind): "
                    + (forgot ? "its stale devices and sign-ins are forgotten; " : "") + "sessions end, devices say hello again")
            lost.formUnion(back)
        }
        guard !lost.isEmpty || wasAway else { return }
        // A session this instance heard of whose document is gone, or made again since (the
        // device said hello again at once), ended with the state, and no instance will say so:
        // this one tells its viewers.
        let live = rings.filter { $0.value.snapshot.session != nil }.map(\.key)
        guard let (documents, _) = try? await documents.read(live.map(FleetKeys.document)) else { return }
        let wall = clock.now()
        for (key, bytes) in zip(live, documents) {
            if let document = bytes.flatMap(FleetDeviceDocument.init(decoding:)) {
                rings[key]?.observe(
                    FleetDeviceSnapshot(document.device), atSeq: document.lastEventSeq, made: document.made, device: key, now: wall)
            } else {
                rings[key]?.endSessionLocally(
                    reason: "backend_restarted", app: key.app, install: key.install, nowUnixMs: wall.wallUnixMs, now: now)
            }
            if rings[key]?.snapshot.session == nil { answerStreams(key, all: true) }
        }
        for (key, hold) in nextHolds where lost.contains(FleetKeys.bucket(of: key)) {
            nextHolds.removeValue(forKey: key)
            hold.continuation.resume(returning: LiveHub.badToken)
        }
    }
}
