import ApsioCore
import ApsioJSON

/// One line of the audit (who watched what): a person joining or leaving a device's viewers, a
/// session's start and end, a renewal, a command and its outcome. Never a line body, a metric, a
/// wireframe or a screenshot: 16.7 forbids storing the stream, and the audit is stored.
package struct AuditEntry: Sendable, Equatable {
    package enum Kind: String, Sendable {
        case watch, leave, renewed, command, result
        case sessionStarted = "session_started"
        case sessionEnded = "session_ended"
    }

    package var atUnixMs: Int64
    package var kind: Kind
    package var device: DeviceKey
    /// The person who acted (or whose command it was).
    package var user: String?
    /// Why a viewer left or a session ended.
    package var reason: String?
    /// How long the session lasted, from its start to its end.
    package var durationMs: Int64?
    /// The people watching when a session started or ended.
    package var viewers: [String]?
    /// A command's id and name, and a result's outcome.
    package var commandID: String?
    package var commandName: String?
    package var outcome: String?

    package init(atUnixMs: Int64, kind: Kind, device: DeviceKey, user: String? = nil) {
        self.atUnixMs = atUnixMs
        self.kind = kind
        self.device = device
        self.user = user
    }

    init(at now: LiveNow, _ kind: Kind, _ device: DeviceKey, user: String? = nil) {
        self.init(atUnixMs: now.wallUnixMs, kind: kind, device: device, user: user)
    }

    /// One JSON object, as `GET /api/audit` lists it, one per line. `ref` makes entries that are
    /// otherwise the same distinct where they are kept as a set (Redis).
    package func json(ref: String? = nil) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        if let ref { writer.key("ref"); writer.string(ref) }
        writer.key("at"); writer.int(atUnixMs)
        writer.key("type"); writer.string(kind.rawValue)
        writer.key("app"); writer.string(device.app)
        writer.key("install"); writer.string(device.install)
        if let user { writer.key("user"); writer.string(user) }
        if let reason { writer.key("reason"); writer.string(reason) }
        if let durationMs { writer.key("duration_ms"); writer.int(durationMs) }
        if let viewers {
            writer.key("viewers")
            writer.beginArray()
            for viewer in viewers { writer.string(viewer) }
            writer.endArray()
        }
        if let commandID { writer.key("id"); writer.string(commandID) }
        if let commandName { writer.key("name"); writer.string(commandName) }
        if let outcome { writer.key("outcome"); writer.string(outcome) }
        writer.endObject()
        return writer.bytes
    }
}
