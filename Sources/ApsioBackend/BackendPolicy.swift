package import ApsioCore
import ApsioJSON

/// The policy `GET /v1/policy` serves an app (LINUX-PROFILE §12) with its `live` object: the
/// origin, the interval and the unexpired tester entries, which carry matches, never proofs.
package enum BackendPolicy {
    package static func document(app: HubApp, configuration: HubConfiguration, nowUnixSeconds: Int64) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("refresh_s"); writer.int(300)
        writer.key("kill_switch"); writer.bool(false)
        writer.key("capture")
        writer.beginObject()
        for family in ["logs", "errors", "metrics", "replay"] {
            writer.key(family); writer.string("always")
        }
        writer.key("logs_min_severity"); writer.int(1)
        writer.endObject()
        writer.key("sampling")
        writer.beginObject()
        writer.key("session_rate"); writer.double(1)
        writer.endObject()
        writer.key("live")
        writer.beginObject()
        writer.key("origin"); writer.string(configuration.origin.text)
        writer.key("interval_s"); writer.int(configuration.interval.components.seconds)
        writer.key("testers")
        writer.beginArray()
        for entry in app.testers where !entry.isExpired(atUnixSeconds: nowUnixSeconds) {
            writer.beginObject()
            writer.key("id"); writer.string(entry.id)
            writer.key("match"); writer.string(entry.match)
            writer.key("expires_at"); writer.int(entry.expiresAt)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }

    /// A strong validator: the first 16 bytes of the body's SHA-256, quoted.
    /// `GET /v1/policy`'s answer: the document with its ETag, or 304 when `If-None-Match` names it.
    package static func reply(
        app: HubApp, configuration: HubConfiguration, ifNoneMatch: String?, nowUnixSeconds: Int64, hashing: some SHA256Hashing
    ) -> (reply: HubReply, etag: String?) {
        let body = document(app: app, configuration: configuration, nowUnixSeconds: nowUnixSeconds)
        let etag = etag(of: body, hashing: hashing)
        if matches(ifNoneMatch: ifNoneMatch, etag: etag) { return (HubReply(status: 304), etag) }
        return (.ok(body), etag)
    }

    package static func etag(of body: [UInt8], hashing: some SHA256Hashing) -> String {
        "\"" + Hex.lowercase(hashing.sha256(body).prefix(16)) + "\""
    }

    /// Whether `If-None-Match` names `etag` (or is `*`), so the answer is 304.
    package static func matches(ifNoneMatch: String?, etag: String) -> Bool {
        guard let ifNoneMatch else { return false }
        return ifNoneMatch.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingCharacters(in: " \t")
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == "*" || tag == etag
        }
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> String {
        var view = self
        while let first = view.first, set.contains(first) { view = view.dropFirst() }
        while let last = view.last, set.contains(last) { view = view.dropLast() }
        return String(view)
    }
}
