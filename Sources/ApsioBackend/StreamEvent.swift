/// One event a step produced for the device's viewers (`LiveHub.takeEmitted()`): already written
/// as a JSON object, with its number in the device's stream. Live data (frames, results) carries
/// its session, so that the stream the viewers poll drops it when the session ends: the live
/// stream lives in memory only, and only while its session does (16.7).
struct StreamEvent: Sendable {
    let seq: UInt64
    /// Set for frames and command results, the live data 16.7 forbids keeping.
    let liveDataOfSession: UInt64?
    let json: String
    /// The event's `type`, for the fleet's messages, which say it beside the event.
    var type: String = ""
}
