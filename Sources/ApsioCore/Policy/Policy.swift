import ApsioJSON
/// What the backend's `GET /v1/policy` says an app may capture and send (LINUX-PROFILE §12).
///
/// There is no default policy to send with: until the first one ever arrives, records are held
/// (15.3). The initialiser's defaults are those of a body that leaves every field out.
package struct Policy: Sendable, Equatable {
    /// `refresh_s`, within 60–3600 s.
    package var refresh: Duration
    /// `kill_switch` (12.3): capture and send nothing, drop the queue, close the live channel.
    package var killSwitch: Bool
    package var capture: CapturePolicy
    /// `sampling.session_rate`, 0–1: the share of sessions ingest keeps (LINUX-PROFILE §9).
    package var sessionRate: Double
    /// nil: live inspection is off.
    package var live: LivePolicy?

    package init(
        refresh: Duration = Limits.spec.defaultPolicyRefresh, killSwitch: Bool = false,
        capture: CapturePolicy = CapturePolicy(), sessionRate: Double = 1, live: LivePolicy? = nil
    ) {
        self.refresh = refresh
        self.killSwitch = killSwitch
        self.capture = capture
        self.sessionRate = sessionRate
        self.live = live
    }

    /// The policy as JSON in the shape the backend sends, every field written and in a fixed
    /// order, for showing or comparing policies. It holds no secret: testers are ids and hashes
    /// of proofs. `PolicyParser.parse` reads it back to an equal value. (The copy kept on disk is
    /// the backend's body as sent, so that a later version finds the fields this one ignores.)
    package func canonicalJSON() -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 256 + (live?.testers.count ?? 0) * 160)
        writer.beginObject()
        writer.key("refresh_s")
        writer.int(refresh.components.seconds)
        writer.key("kill_switch")
        writer.bool(killSwitch)
        writer.key("capture")
        writer.beginObject()
        for (name, mode) in [("logs", capture.logs), ("errors", capture.errors), ("metrics", capture.metrics),
                             ("replay", capture.replay)] {
            writer.key(name)
            writer.string(mode.rawValue)
        }
        writer.key("logs_min_severity")
        writer.int(Int64(capture.logsMinSeverity))
        writer.endObject()
        writer.key("sampling")
        writer.beginObject()
        writer.key("session_rate")
        writer.double(sessionRate)
        writer.endObject()
        if let live {
            writer.key("live")
            writer.beginObject()
            writer.key("origin")
            writer.string(live.origin.text)
            writer.key("interval_s")
            writer.int(live.interval.components.seconds)
            writer.key("testers")
            writer.beginArray()
            for tester in live.testers {
                writer.beginObject()
                writer.key("id")
                writer.string(tester.id)
                writer.key("match")
                writer.string(tester.match)
                writer.key("expires_at")
                writer.int(tester.expiresAt)
                writer.endObject()
            }
            writer.endArray()
            writer.endObject()
        }
        writer.endObject()
        return writer.bytes
    }
}
