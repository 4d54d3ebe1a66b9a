import ApsioCore
import ApsioJSON

/// What the hub answers a request with: a status and, usually, a JSON body. The HTTP layer turns
/// it into a response; the hub itself knows nothing of sockets.
package struct HubReply: Sendable, Equatable {
    package var status: Int
    package var json: [UInt8]?
    package var retryAfterSeconds: Int?

    package init(status: Int, json: [UInt8]? = nil, retryAfterSeconds: Int? = nil) {
        self.status = status
        self.json = json
        self.retryAfterSeconds = retryAfterSeconds
    }

    package static func ok(_ json: [UInt8]) -> HubReply { HubReply(status: 200, json: json) }
    package static let empty = HubReply(status: 200, json: Array("{}".utf8))
    package static let noContent = HubReply(status: 204)

    /// An error with a stable code and a sentence a person can act on; never a secret in either.
    package static func error(_ status: Int, _ code: String, _ message: String) -> HubReply {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("error"); writer.string(code)
        writer.key("message"); writer.string(message)
        writer.endObject()
        return HubReply(status: status, json: writer.bytes)
    }
}

/// A request the hub holds (a `next` long poll, a viewer's stream poll), named so that its
/// answer, which comes later, finds the waiting caller.
package struct HoldID: Sendable, Hashable, CustomStringConvertible {
    package let value: UInt64
    package var description: String { "hold#\(value)" }
}

/// The hub either answers at once or holds the request until something happens or time runs out.
package enum HubStep: Sendable, Equatable {
    case reply(HubReply)
    case held(HoldID)
}

/// The answer to a request the hub held.
package struct HubRelease: Sendable, Equatable {
    package let hold: HoldID
    package let reply: HubReply
}
