/// The backend's own bounds on what devices, viewers and sign-ins can make it keep.
/// Spec 16's numbers (hold time, presence slack, command memory, caps) come from core's `Limits`;
/// these are the ones the spec leaves to a backend.
package struct BackendLimits: Sendable, Equatable {
    /// Devices with a presence, viewers or pending commands; a hello past it is answered 503.
    package var maxDevices = 10_000
    package var maxViewersPerDevice = 32
    /// A viewer that neither polls its stream nor acts for this long has left.
    package var viewerTimeout: Duration = .seconds(60)
    /// A viewer's stream poll is held at most this long, then answered with no events.
    package var streamHoldTime: Duration = .seconds(25)
    /// What each instance keeps of a device's recent events, for viewers whose polls land on it:
    /// long enough for a poll held 25 s elsewhere, small enough for a thousand live devices. Past
    /// a bound the oldest go, and a poll that had not fetched them is told how many.
    package var fleetStreamMemory: Duration = .seconds(40)
    package var maxFleetStreamEventsPerDevice = 1000
    package var maxFleetStreamBytesPerDevice = 2 * 1024 * 1024
    /// What Redis keeps of each device's latest viewer events, for an instance that starts serving
    /// one of its viewers (whose previous poll another instance answered, or that just watched):
    /// a busy device's last seconds. An event larger than `maxFleetRecentEventBytes` is kept as a
    /// one-event gap.
    package var fleetRecentEvents = 16
    package var fleetRecentLifetime: Duration = .seconds(30)
    package var maxFleetRecentEventBytes = 256 * 1024
    /// What each fleet instance keeps of the device documents it last read or wrote, to change
    /// them again in one round trip to Redis: a few kilobytes a device, thousands of devices.
    package var fleetDocumentCacheBytes = 8 * 1024 * 1024
    /// Who watched what is kept this long (docs/audit.md), and at most this many entries for each
    /// device, and in memory (no Redis) this many for all of them together.
    package var auditRetention: Duration = .seconds(30 * 86_400)
    package var maxAuditEntries = 100_000
    package var maxAuditEntriesPerDevice = 10_000
    /// Commands pending for one device at once.
    package var maxPendingCommandsPerDevice = 16
    /// A command sent in a `next` answer and not answered is sent again after this long, or at
    /// once in the next session (16.4: "one can come twice, in the same live session or the next").
    package var commandRedelivery: Duration = .seconds(30)
    /// `install`, `model`, `os`, `release`, `session` and `tester` longer than this are refused (400).
    package var maxFieldBytes = 256
    /// Ingest requests kept in memory for the demo and the tests.
    package var maxIngestRequestsKept = 100
    /// A sign-in lasts this long, and is forgotten after this long unused.
    package var signInLifetime: Duration = .seconds(12 * 3600)
    package var signInIdleTimeout: Duration = .seconds(2 * 3600)
    package var maxSignIns = 1000
    /// Password checks running at once; each costs a PBKDF2 run, so more are answered 503.
    package var maxConcurrentPasswordChecks = 4

    package init() {}

    package static let `default` = BackendLimits()
}
