package import ApsioCore
import ApsioJSON

extension Policy {
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
