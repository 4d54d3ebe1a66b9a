package import ApsioCore
package import ApsioNet
package import ApsioPOSIX
package import ApsioState
import ApsioWire

/// Keeps one app's policy (LINUX-PROFILE §12): `GET {Backend}/v1/policy` with the app key and the
/// last `ETag`, every `refresh_s`, on `fetchNow()`, and again after a failure.
///
/// - At `start()` the policy kept on disk is delivered before any request, so the app does not
///   wait for the network; the backend being down leaves it in use.
/// - Each policy that differs from the one in use is yielded on `policies` (newest only: a reader
///   that falls behind gets the latest, which is the one that counts). The stream finishes on
///   `stop()`.
/// - A body that does not parse keeps the policy in use and is reported once per body.
/// - A failure (network, 3xx, 4xx, 5xx) is asked again after `Retry-After` or a backoff doubling
///   from `Limits.policyRetryInitial`, never sooner than that and never later than the refresh
///   interval.
/// - Requests go to the app's backend only: the client follows no redirect.
///
/// The fetcher runs until `stop()`; it holds itself alive until then.
package actor PolicyFetcher {
    /// Every policy to apply, in order; the newest only when the reader falls behind.
    package nonisolated let policies: AsyncStream<Policy>
    private let continuation: AsyncStream<Policy>.Continuation

    private let app: AppName
    private let backend: HTTPEndpoint
    private let appKey: AppKey
    private let client: HTTPClient
    private let store: AppStateStore
    private let clock: any AgentClock
    private let hashing: any SHA256Hashing
    private let limits: Limits
    private let events: @Sendable (PolicyFetchEvent) -> Void

    /// The policy in use: from disk at start, then the backend's.
    package private(set) var current: Policy?
    /// Sent as `If-None-Match`; belongs to `current`.
    private var etag: PolicyETag?
    /// What is on disk, so an unchanged body or `ETag` is not written again.
    private var storedDigest: [UInt8]?
    private var storedETag: PolicyETag?
    /// False until the `ETag` file's content is known: the first save writes or removes it.
    private var storedETagKnown = false
    /// The malformed body already reported.
    private var reportedMalformed: [UInt8]?
    private var backoff: ReconnectBackoff

    private var loop: Task<Void, Never>?
    private var wait: Task<Void, any Error>?
    private var fetchRequested = false
    private var stopped = false

    /// A policy answers at once; this bounds a backend that accepts and never answers.
    static let requestTimeout: Duration = .seconds(30)

    package init(
        app: AppName, backend: HTTPEndpoint, appKey: AppKey, client: HTTPClient, store: AppStateStore,
        clock: any AgentClock, hashing: any SHA256Hashing = OpenSSLSHA256(), limits: Limits = .spec,
        events: @escaping @Sendable (PolicyFetchEvent) -> Void
    ) {
        (policies, continuation) = AsyncStream.makeStream(of: Policy.self, bufferingPolicy: .bufferingNewest(1))
        self.app = app
        self.backend = backend
        self.appKey = appKey
        self.client = client
        self.store = store
        self.clock = clock
        self.hashing = hashing
        self.limits = limits
        self.events = events
        backoff = ReconnectBackoff(initial: limits.policyRetryInitial, maximum: limits.maxPolicyRefresh)
    }

    /// Delivers the policy kept on disk, if any, then asks the backend at once.
    package func start() {
        guard loop == nil, !stopped else { return }
        loadStored()
        loop = Task { await self.run() }
    }

    /// Asks the backend now (`apsioctl reload`), whatever the schedule or a backoff says. A request
    /// already on its way is followed by another, as the policy may have changed since it left.
    package func fetchNow() {
        guard !stopped else { return }
        fetchRequested = true
        wait?.cancel()
    }

    /// Cancels the request in flight and the wait at once; nothing is delivered, written or
    /// reported once this returns.
    package func stop() async {
        guard !stopped else { return }
        stopped = true
        loop?.cancel()
        wait?.cancel()
        await loop?.value
        loop = nil
        continuation.finish()
    }

    private var refresh: Duration { current?.refresh ?? limits.defaultPolicyRefresh }

    // MARK: - The loop

    private func run() async {
        while !Task.isCancelled {
            fetchRequested = false
            let delay = await fetchOnce()
            if Task.isCancelled { return }
            if fetchRequested { continue }
            await sleep(for: delay)
        }
    }

    private func sleep(for delay: Duration) async {
        let deadline = clock.now().mono + delay
        let clock = self.clock
        let task = Task { try await clock.sleep(until: deadline) }
        wait = task
        _ = try? await task.value
        wait = nil
    }

    /// One request and what its answer does; returns the wait before the next.
    private func fetchOnce() async -> Duration {
        var headers: HTTPHeaders = ["Apsio-App-Key": appKey.secret, "Accept": "application/json"]
        let conditional = current != nil && etag != nil
        if conditional, let etag { headers.set("If-None-Match", etag.value) }
        let response: HTTPResponse
        do {
            response = try await client.send(.get("/v1/policy", headers: headers, timeout: Self.requestTimeout), to: backend)
        } catch let error as HTTPClientError {
            if Task.isCancelled { return .zero }
            return failed(.network(error), retryAfter: nil)
        } catch {
            return .zero  // Cancelled: `stop()` is ending the loop.
        }
        if Task.isCancelled { return .zero }

        switch response.status {
        case 200:
            backoff.reset()
            return received(response)
        case 304 where conditional:
            backoff.reset()
            events(.notModified)
            return refresh
        default:
            // A 304 to a request that named no ETag leaves nothing to keep: a failure like any other.
            let retryAfter = response.retryAfter(nowUnixSeconds: Int(clock.now().wallUnixSeconds))
            return failed(.status(response.status), retryAfter: retryAfter)
        }
    }

    private func failed(_ failure: PolicyFetchFailure, retryAfter: Duration?) -> Duration {
        let backedOff = backoff.nextDelay()
        let delay = min(max(retryAfter ?? backedOff, limits.policyRetryInitial), refresh)
        events(.failed(failure, retryIn: delay))
        return delay
    }

    private func received(_ response: HTTPResponse) -> Duration {
        let body = response.body
        let reading: PolicyReading
        do {
            reading = try PolicyParser.parse(body, limits: limits)
        } catch {
            let digest = hashing.sha256(body)
            if digest != reportedMalformed {
                reportedMalformed = digest
                events(.malformed(error))
            }
            return refresh
        }
        reportedMalformed = nil
        let newETag = response.headers["ETag"].flatMap(PolicyETag.init)
        etag = newETag
        let changed = keep(body, etag: newETag)
        if reading.policy != current {
            current = reading.policy
            continuation.yield(reading.policy)
        }
        events(.fetched(changed: changed, ignoredLive: reading.ignoredLive))
        return reading.policy.refresh
    }

    // MARK: - On disk

    private func loadStored() {
        let body: [UInt8]
        do {
            guard let stored = try store.lastPolicy(for: app) else {
                storedETagKnown = false
                return
            }
            body = stored
        } catch {
            events(.storedPolicyUnusable("\(error)"))
            return
        }
        let reading: PolicyReading
        do {
            reading = try PolicyParser.parse(body, limits: limits)
        } catch {
            events(.storedPolicyUnusable("\(error)"))
            return
        }
        storedDigest = hashing.sha256(body)
        if let kept = try? store.lastPolicyETag(for: app) {
            storedETag = kept
            storedETagKnown = true
        }
        etag = storedETag
        current = reading.policy
        continuation.yield(reading.policy)
        events(.loadedFromDisk)
    }

    /// Keeps the body and its `ETag`; returns whether the body differs from the one kept. The old
    /// `ETag` goes before the body is replaced, so a crash never leaves one naming another body.
    private func keep(_ body: [UInt8], etag newETag: PolicyETag?) -> Bool {
        let digest = hashing.sha256(body)
        let changed = digest != storedDigest
        do {
            if changed {
                if storedETag != nil || !storedETagKnown {
                    try store.saveLastPolicyETag(nil, for: app)
                    storedETag = nil
                    storedETagKnown = true
                }
                try store.saveLastPolicy(body, for: app)
                storedDigest = digest
            }
            if newETag != storedETag || !storedETagKnown {
                try store.saveLastPolicyETag(newETag, for: app)
                storedETag = newETag
                storedETagKnown = true
            }
        } catch {
            events(.notSaved(error))
        }
        return changed
    }
}
