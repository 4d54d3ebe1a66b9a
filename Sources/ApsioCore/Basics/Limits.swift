/// Every number spec 16 fixes, in one value, named after what it limits.
///
/// Rules read their numbers from here rather than from literals, so a test can check each rule at
/// its limit and one past it, and so a reader can find every cap of the live channel in one place.
package struct Limits: Sendable, Equatable {
    // 16.1: the policy's live.testers list.
    package var maxTesters = 100

    // 16.3: the live session's ends.
    package var sessionLength: Duration = .seconds(30 * 60)
    package var maxPausedTime: Duration = .seconds(60)
    package var maxSessionBytes = 10_000_000
    package var maxDayBytes = 50_000_000
    /// A backend ends a live session that sent no `frames` and no `next` for this long.
    package var silentSessionTimeout: Duration = .seconds(60)

    // 16.4: hellos, tokens and the long-poll.
    package var defaultHelloInterval: Duration = .seconds(30)
    package var minHelloInterval: Duration = .seconds(15)
    package var maxHelloInterval: Duration = .seconds(120)
    /// Failed hellos back off exponentially up to this.
    package var maxHelloBackoff: Duration = .seconds(120)
    /// The backend holds `next` at most this long before it answers 204.
    package var nextHoldTime: Duration = .seconds(25)
    /// Presence lasts 2 × interval_s plus this.
    package var presenceSlack: Duration = .seconds(25)
    package var deviceTokenHexLength = 64
    package var deviceTokenBytes = 32
    package var proofHexLength = 64
    /// Commands stay pending on the backend, and their ids and results on the device, this long.
    package var commandMemory: Duration = .seconds(120)

    // 16.5: what the device sends.
    package var maxLinesPerFrames = 200
    package var minUploadSpacing: Duration = .seconds(1)
    package var minMetricsOnlySpacing: Duration = .seconds(5)
    package var maxWireframesPerSecond = 2
    package var minFootprintReadSpacing: Duration = .seconds(1)
    /// A log body is cut to this many UTF-8 bytes (1.6).
    package var maxBodyBytes = 4096
    /// A string attribute is cut to this many UTF-8 bytes (LINUX-PROFILE §1).
    package var maxAttributeStringBytes = 1024

    // 16.6: commands.
    package var raisedLogLevelDuration: Duration = .seconds(30 * 60)

    // The project's own bounds on what a backend can make the device do; the spec names none.
    /// Commands read from one `next` answer; the rest stay pending on the backend and come again.
    package var maxCommandsPerAnswer = 16
    /// A command id or name longer than this is not a command the backend would send.
    package var maxCommandIDBytes = 256
    /// The body of a hello or `next` answer (or of a refusal) larger than this is not read: the
    /// HTTP client stops at the same size, and an answer is a few hundred bytes.
    package var maxLiveAnswerBytes = 1 << 20
    /// `next` is asked again at once, but never more often than this, so a backend that answers
    /// instantly cannot spin the device in a loop.
    package var minNextSpacing: Duration = .milliseconds(250)
    /// First wait after `next` or `frames` fail without a `Retry-After`; it doubles up to the
    /// hello interval.
    package var liveRetryInitial: Duration = .seconds(1)
    /// A `Retry-After` longer than this is read as this: a hostile answer cannot park the channel for years.
    package var maxRetryAfter: Duration = .seconds(24 * 3600)
    /// 402 and 403 pause hellos this long when the answer has no `Retry-After` (1.5).
    package var defaultRefusalPause: Duration = .seconds(3600)

    // LINUX-PROFILE §12: the policy. The spec fixes the refresh bounds; the rest are the
    // project's own bounds on what a backend can make the device hold.
    package var defaultPolicyRefresh: Duration = .seconds(300)
    package var minPolicyRefresh: Duration = .seconds(60)
    package var maxPolicyRefresh: Duration = .seconds(3600)
    /// A policy body larger than this is refused before it is read.
    package var maxPolicyBytes = 1 << 20
    /// A failed policy request is asked again after this, doubling, but never later than the
    /// refresh interval: a policy must not wait longer for an outage than for a refresh.
    package var policyRetryInitial: Duration = .seconds(1)
    /// Arrays and objects nested deeper than this in a body a peer sent are refused.
    package var maxJSONDepth = 32
    /// A tester entry's `id` is sent back in every hello; one longer than this is not an id.
    package var maxTesterIDBytes = 256

    // LINUX-PROFILE §11: redaction.
    /// A private key printed line by line spans journal entries; after this many entries without
    /// its END line the block is taken as over, so a key never closed cannot blank an app's log.
    package var maxPrivateKeyLines = 256

    // LINUX-PROFILE §9: sampling.
    /// Sessions whose sampling decision is remembered; an older one is decided again, the same
    /// way unless the rate changed meanwhile.
    package var maxRememberedSessions = 256

    // LINUX-PROFILE §1 and §4: delivery to `POST {Backend}/v1/logs`. The spec fixes the backoff's
    // ends and the Low Power Mode spacing; the batch bounds are the project's own.
    /// A batch goes once this many bytes wait; it is also the most one batch asks for.
    package var ingestBatchBytes = 512 * 1024
    /// A batch goes once its oldest record has waited this long, however few bytes wait.
    package var ingestBatchAge: Duration = .seconds(5)
    /// A batch holding a record that says entries were lost (journald's drops, `RateLimit=`'s)
    /// goes this long after that record was queued, whatever the batch's age: a gap is owed to
    /// the backend within 2 s (docs/ingest-delivery.md), and the lines written with it still have
    /// a moment to join it.
    package var ingestPromptDelay: Duration = .milliseconds(250)
    /// The most records one batch asks for; a batch also goes once this many wait.
    package var ingestBatchRecords = 1000
    /// 429, 5xx, 3xx and network failures retry after this, doubling up to `ingestRetryMaximum`.
    package var ingestRetryInitial: Duration = .seconds(1)
    package var ingestRetryMaximum: Duration = .seconds(5 * 60)
    /// Under Low Power Mode a batch goes at most this often (4.4).
    package var lowPowerUploadSpacing: Duration = .seconds(5 * 60)

    package init() {}

    /// The numbers as the spec gives them.
    package static let spec = Limits()
}
