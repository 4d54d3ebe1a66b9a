import ApsioCore

/// A command a viewer sent (16.6), pending on the backend until its result arrives or for 2
/// minutes; its result is accepted for 2 minutes after it was last sent to the device (16.4).
struct PendingCommand: Sendable {
    let id: String
    let name: LiveCommandName
    let by: String
    let createdAt: MonotonicInstant
    var lastSentAt: MonotonicInstant?
    var lastSentSession: UInt64?
    var resolved = false

    /// Whether a `next` answer for `session` should carry it now.
    func isDue(session: UInt64, now: MonotonicInstant, limits: Limits, redelivery: Duration) -> Bool {
        guard !resolved, now < createdAt + limits.commandMemory else { return false }
        guard let lastSentAt, lastSentSession == session else { return true }
        return now >= lastSentAt + redelivery
    }

    /// Whether a result for it is still one "sent to that device in the last 2 minutes".
    func acceptsResult(now: MonotonicInstant, limits: Limits) -> Bool {
        guard let lastSentAt else { return false }
        return now <= lastSentAt + limits.commandMemory
    }

    /// When it can be forgotten: nothing more will be sent, and no result accepted.
    func forgetAt(limits: Limits) -> MonotonicInstant {
        max(createdAt, lastSentAt ?? createdAt) + limits.commandMemory
    }
}
