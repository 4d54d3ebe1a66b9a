package import ApsioPOSIX
package import ApsioCore
import ApsioNet
import Synchronization

/// The hub, the sign-ins and the ingest sink behind one actor: it reads the clock, feeds the
/// pure hub, keeps the callers of held requests (`next`, stream polls) waiting on continuations,
/// and wakes the hub at its deadlines so a held `next` gets its 204 after 25 s.
package actor BackendService: HubService {
    private var hub: LiveHub
    private var signIns: SignInSessions
    private var ingestLog: IngestLog
    private var auditLog: AuditLog
    private let clock: any AgentClock
    private let hashing = OpenSSLSHA256()
    private var waiters: [HoldID: CheckedContinuation<HubReply, Never>] = [:]
    private var passwordChecks = 0
    private var ticker: Task<Void, Never>?
    package nonisolated let backendLimits: BackendLimits
    /// Read outside the actor by every viewer request (an app key never opens a live view), and
    /// replaced by a reload.
    private nonisolated let appKeys: Mutex<Set<String>>

    private let accounts: AccountsBook

    package init(
        configuration: HubConfiguration, accounts: AccountsBook, clock: any AgentClock = SystemAgentClock(),
        random: some RandomBytesSource = SystemRandomBytes(), limits: Limits = .spec,
        backendLimits: BackendLimits = .default
    ) {
        hub = LiveHub(
            configuration: configuration, hashing: OpenSSLSHA256(), random: random, limits: limits,
            backendLimits: backendLimits)
        signIns = SignInSessions(limits: backendLimits)
        self.accounts = accounts
        ingestLog = IngestLog(capacity: backendLimits.maxIngestRequestsKept)
        auditLog = AuditLog(capacity: backendLimits.maxAuditEntries, retention: backendLimits.auditRetention)
        self.clock = clock
        self.backendLimits = backendLimits
        appKeys = Mutex(Set(configuration.apps.map(\.appKey)))
    }

    /// Starts waking the hub at its deadlines.
    package func start() {
        guard ticker == nil else { return }
        ticker = Task { await self.runTicker() }
    }

    /// Stops the ticker and answers every held request (204), so no caller waits forever.
    package func stop() async {
        ticker?.cancel()
        await ticker?.value
        ticker = nil
        for (id, waiter) in waiters {
            hub.cancelHold(id)
            waiter.resume(returning: .noContent)
        }
        waiters = [:]
    }

    /// Whether `text` is one of the apps' keys: such a credential never opens a live view (16.7).
    package nonisolated func isAppKey(_ text: String) -> Bool { appKeys.withLock { $0.contains(text) } }

    /// A reload: the hub serves `configuration` from now on, keeping the sessions of the apps
    /// still there (`LiveHub.reconfigure`).
    package func reconfigure(_ configuration: HubConfiguration) {
        hub.reconfigure(configuration, now: clock.now())
        appKeys.withLock { $0 = Set(configuration.apps.map(\.appKey)) }
        deliver()
    }

    /// What the hub serves now.
    package var configuration: HubConfiguration { hub.configuration }

    // MARK: - The device's side

    package func hello(appKey: String?, token: String?, body: [UInt8]) -> HubReply {
        let reply = hub.hello(appKey: appKey, token: token, body: body, now: clock.now())
        deliver()
        return reply
    }

    package func next(appKey: String?, token: String?, install: String?) async -> HubReply {
        await wait(hub.next(appKey: appKey, token: token, install: install, now: clock.now()))
    }

    package func frames(appKey: String?, token: String?, body: [UInt8], wireBytes: Int) -> HubReply {
        let reply = hub.frames(appKey: appKey, token: token, body: body, wireBytes: wireBytes, now: clock.now())
        deliver()
        return reply
    }

    package func results(appKey: String?, token: String?, body: [UInt8], wireBytes: Int) -> HubReply {
        let reply = hub.results(appKey: appKey, token: token, body: body, wireBytes: wireBytes, now: clock.now())
        deliver()
        return reply
    }

    /// The app's policy and its ETag; 304 when `If-None-Match` names it.
    package func policy(appKey: String?, ifNoneMatch: String?) -> (reply: HubReply, etag: String?) {
        guard let app = hub.app(forKey: appKey) else { return (LiveHub.unknownAppKey, nil) }
        return BackendPolicy.reply(
            app: app, configuration: hub.configuration, ifNoneMatch: ifNoneMatch, nowUnixSeconds: clock.now().wallUnixSeconds,
            hashing: hashing)
    }

    /// `POST /v1/logs`: an OTLP/HTTP JSON `ExportLogsServiceRequest`, kept in memory.
    package func ingest(appKey: String?, body: [UInt8]) -> HubReply {
        guard let app = hub.app(forKey: appKey) else { return LiveHub.unknownAppKey }
        guard JSONBody.object(body) != nil else { return LiveHub.unreadable("the body is not an OTLP/HTTP JSON object") }
        ingestLog.append(IngestedRequest(app: app.name, receivedUnixMs: clock.now().wallUnixMs, json: body))
        return .empty
    }

    /// The ingest requests kept, oldest first, and how many came in all.
    package func ingested() -> (requests: [IngestedRequest], total: Int) {
        (ingestLog.requests, ingestLog.total)
    }

    // MARK: - Sign-in

    /// A password check costs a PBKDF2 run: only a few run at once, so sign-in attempts cannot
    /// take the machine. Returns false when the caller should answer 503.
    package func reservePasswordCheck() -> Bool {
        guard passwordChecks < backendLimits.maxConcurrentPasswordChecks else { return false }
        passwordChecks += 1
        return true
    }

    package func releasePasswordCheck() {
        passwordChecks -= 1
    }

    /// Signs a person in whose password was checked; returns the secret token and the public id.
    package func signIn(_ account: Account) -> Result<(token: String, id: String), HubUnavailable> {
        let token = Hex.lowercase(SecureRandom.bytes(32))
        let id = Hex.lowercase(SecureRandom.bytes(8))
        _ = signIns.create(account, token: token, id: id, now: clock.now().mono)
        return .success((token, id))
    }

    package func signOut(token: String) {
        guard let signIn = signIns.remove(token: token) else { return }
        hub.signedOut(signIn.id, now: clock.now())
        deliver()
    }

    /// The person a sign-in token names, if it is valid, with the rights the accounts give now.
    package func viewer(token: String) -> Result<HubViewerIdentity?, HubUnavailable> {
        guard let signIn = signIns.find(token: token, now: clock.now().mono) else { return .success(nil) }
        guard let account = accounts.account(named: signIn.user, passwordStamp: signIn.passwordStamp) else {
            signOut(token: token)
            return .success(nil)
        }
        return .success(HubViewerIdentity(signIn: signIn.id, user: signIn.user, mayChangeSettings: account.role.mayChangeSettings))
    }

    package func accountsChanged() {
        let now = clock.now()
        let gone = signIns.removeAll { self.accounts.account(named: $0.user, passwordStamp: $0.passwordStamp) != nil }
        for signIn in gone { hub.signedOut(signIn.id, now: now) }
        deliver()
    }

    /// In memory, the hub's state is always at hand.
    package func health() -> HubReply {
        .ok(Array(#"{"status":"ok","state":"memory","held":\#(hub.heldRequestCount)}"#.utf8))
    }

    // MARK: - The viewers' side

    package func devices() -> HubReply { .ok(hub.devicesJSON(now: clock.now())) }

    package func watch(_ viewer: HubViewerIdentity, app: String?, install: String) -> HubReply {
        let reply = hub.watch(viewer, app: app, install: install, now: clock.now())
        deliver()
        return reply
    }

    package func watchState(_ viewer: HubViewerIdentity, app: String?, install: String) -> HubReply {
        let reply = hub.watchState(viewer, app: app, install: install, now: clock.now())
        deliver()
        return reply
    }

    package func leave(_ viewer: HubViewerIdentity, app: String?, install: String) -> HubReply {
        let reply = hub.leave(viewer, app: app, install: install, now: clock.now())
        deliver()
        return reply
    }

    package func command(_ viewer: HubViewerIdentity, app: String?, install: String, body: [UInt8]) -> HubReply {
        let reply = hub.command(viewer, app: app, install: install, body: body, now: clock.now())
        deliver()
        return reply
    }

    package func stream(_ viewer: HubViewerIdentity, app: String?, install: String, after: UInt64?) async -> HubReply {
        await wait(hub.stream(viewer, app: app, install: install, after: after, now: clock.now()))
    }

    package func audit(of device: DeviceKey) -> Result<[[UInt8]], HubUnavailable> {
        .success(auditLog.entries(of: device).map { $0.json() })
    }

    /// Requests held now (`next` long polls and stream polls).
    package func heldRequestCount() -> Int { hub.heldRequestCount }

    // MARK: - Holding and waking

    private func wait(_ step: HubStep) async -> HubReply {
        deliver()
        switch step {
        case .reply(let reply):
            return reply
        case .held(let id):
            return await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    waiters[id] = continuation
                }
            } onCancel: {
                Task { await self.abandon(id) }
            }
        }
    }

    /// The caller of a held request went away (its connection closed).
    private func abandon(_ id: HoldID) {
        hub.cancelHold(id)
        waiters.removeValue(forKey: id)?.resume(returning: .noContent)
    }

    private func deliver() {
        let audit = hub.takeAudit()
        if !audit.isEmpty { auditLog.append(audit, nowUnixMs: clock.now().wallUnixMs) }
        for release in hub.takeReleases() {
            waiters.removeValue(forKey: release.hold)?.resume(returning: release.reply)
        }
    }

    private func runTicker() async {
        while !Task.isCancelled {
            let now = clock.now()
            let soon = now.mono + .seconds(1)
            let target = min(hub.nextDeadline ?? soon, soon)
            do {
                try await clock.sleep(until: target)
            } catch {
                return
            }
            tick()
        }
    }

    /// Applies everything due now; the ticker calls it, and tests on a manual clock may too.
    package func tick() {
        let now = clock.now()
        hub.tick(now: now)
        for gone in signIns.expire(now: now.mono) { hub.signedOut(gone.id, now: now) }
        deliver()
    }
}
