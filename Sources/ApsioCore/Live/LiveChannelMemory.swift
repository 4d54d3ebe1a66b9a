/// What an app's live channel remembers past one run of the app inside the daemon: when it may say
/// hello next, the moment the backend named, its hello backoff, its last 401, the interval the
/// backend last answered, and the commands it ran.
///
/// A reload restarts an app whose file changed, in the same process. The backend sees the same
/// install, so 16.4 holds across the restart: the hello keeps its cadence, backoff and
/// `Retry-After`, and a command that comes again after it is answered from memory, not run twice.
/// It stays in memory, as the spec asks of both; a restart of apsiod is a new launch and starts
/// afresh. It is kept for one origin: another backend owes nothing to what this one said.
package struct LiveChannelMemory: Sendable {
    /// The origin it was kept for; set by the runtime, which knows it.
    package var origin: LiveOrigin?
    /// The earliest the next hello may go: its schedule, or a hello in flight when the app stopped
    /// counted as answered, since the backend may have seen it.
    package var helloNotBefore: MonotonicInstant?
    package var helloFailures = 0
    package var heldUntil: MonotonicInstant?
    package var last401At: MonotonicInstant?
    package var answeredInterval: Duration?
    /// Finished commands only: one still running when the app stopped was cancelled, and runs when
    /// it comes again.
    package var commands = CommandMemory()

    package init() {}
}
