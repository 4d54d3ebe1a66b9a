import ApsioCore

/// A device's presence on the channel (16.4): its token and what its last hello said. It keeps
/// the tester's id only, never the proof that made it count (16.7).
struct HubPresence: Sendable {
    /// 64 lowercase hex characters; the key of the hub's token index.
    var token: String
    var tester: String
    /// The interval its hellos were asked to keep; presence lasts 2 × it + 25 s.
    var interval: Duration
    var lastSeen: MonotonicInstant
    var session: String?
    var model: String
    var os: String
    var release: String
    /// The hello's `reason` (`inactive`, `low_power`, `capped`), nil when it could start a session.
    var reason: String?
    var lastHelloUnixMs: Int64

    func expires(limits: Limits) -> MonotonicInstant {
        lastSeen + interval * 2 + limits.presenceSlack
    }
}
