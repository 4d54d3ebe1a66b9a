package import ApsioCore

/// What the HTTP layer asks of the hub: `FleetService`, whose state is in this process's memory
/// (the demo, development, one instance) or in Redis (several instances behind a load balancer),
/// one code path over either store (`FleetStores`), running the rules of `LiveHub`.
package protocol HubService: Sendable {
    var backendLimits: BackendLimits { get }
    /// Whether `text` is one of the apps' keys: such a credential never opens a live view (16.7).
    func isAppKey(_ text: String) -> Bool

    func start() async
    func stop() async
    func reconfigure(_ configuration: HubConfiguration) async

    func hello(appKey: String?, token: String?, body: [UInt8]) async -> HubReply
    func next(appKey: String?, token: String?, install: String?) async -> HubReply
    func frames(appKey: String?, token: String?, body: [UInt8], wireBytes: Int) async -> HubReply
    func results(appKey: String?, token: String?, body: [UInt8], wireBytes: Int) async -> HubReply
    func policy(appKey: String?, ifNoneMatch: String?) async -> (reply: HubReply, etag: String?)
    /// `POST /v1/logs`: the request kept in the JSON mapping, whichever encoding it came in.
    func ingest(appKey: String?, body: [UInt8], encoding: OTLPEncoding) async -> HubReply
    func ingested() async -> (requests: [IngestedRequest], total: Int)

    func reservePasswordCheck() async -> Bool
    func releasePasswordCheck() async
    /// The new sign-in's secret token and public id, or the reply to give when it cannot be kept.
    func signIn(_ account: Account) async -> Result<(token: String, id: String), HubUnavailable>
    func signOut(token: String) async
    /// The person a sign-in token names, with the rights the accounts give them now: nil when it
    /// names nobody, or a person no longer in the accounts (whose sign-in then ends).
    func viewer(token: String) async -> Result<HubViewerIdentity?, HubUnavailable>
    /// The accounts were read again: the sign-ins of people no longer in them end (in memory at
    /// once; in Redis, where sign-ins are found by their token only, at their next request).
    func accountsChanged() async

    func devices() async -> HubReply
    func watch(_ viewer: HubViewerIdentity, app: String?, install: String) async -> HubReply
    func watchState(_ viewer: HubViewerIdentity, app: String?, install: String) async -> HubReply
    func leave(_ viewer: HubViewerIdentity, app: String?, install: String) async -> HubReply
    func command(_ viewer: HubViewerIdentity, app: String?, install: String, body: [UInt8]) async -> HubReply
    func stream(_ viewer: HubViewerIdentity, app: String?, install: String, after: UInt64?) async -> HubReply
    /// The device's audit, oldest first (admins only: the route checks).
    func audit(of device: DeviceKey) async -> Result<[[UInt8]], HubUnavailable>
    /// Requests held now in this instance (`next` long polls and stream polls).
    func heldRequestCount() async -> Int
    /// `GET /api/health`: whether the hub can reach its state; the viewer shows a degraded backend.
    func health() async -> HubReply
}

/// The hub's state cannot be reached now: answered 503 with `Retry-After`.
package struct HubUnavailable: Error, Sendable {
    package let reply: HubReply

    init(reply: HubReply) {
        self.reply = reply
    }

    package init(retryAfterSeconds: Int) {
        var reply = HubReply.error(503, "degraded", "the backend cannot reach its shared state now; try again shortly")
        reply.retryAfterSeconds = max(1, retryAfterSeconds)
        self.reply = reply
    }
}
