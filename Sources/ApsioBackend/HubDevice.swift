/// Everything the hub keeps about one app install: its presence, its live session, its viewers
/// and its pending commands. A record with none of them is removed.
struct HubDevice: Sendable {
    var presence: HubPresence?
    var session: HubSession?
    var viewers: [String: HubViewer] = [:]
    var commands: [PendingCommand] = []
    /// Set when a session ended at `until` or `session_bytes`: hellos get `viewers` 0 until a
    /// viewer joins or renews (16.3 "no restart by itself").
    var capsReached = false
    /// What a `next` gets when no session runs: the `stop` of the session that ended last.
    var lastStop: String?
    /// The latest session's end, which the fleet tells with every event (`HubSessionEnd`).
    var lastEnd: HubSessionEnd?
    var heldNext: HoldID?

    var isEmpty: Bool { presence == nil && session == nil && viewers.isEmpty && commands.isEmpty }

    /// The `viewers` a hello is answered with.
    var viewersForHello: Int { capsReached ? 0 : viewers.count }
}
