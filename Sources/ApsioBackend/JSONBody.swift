package import ApsioCore
import FoundationEssentials

/// Reads a request body as JSON. Anything that is not valid JSON is nil: the caller answers 400.
/// Size is bounded before this by the server's body limit; nesting by the decoder's own depth limit.
package enum JSONBody {
    package static func parse(_ bytes: [UInt8]) -> JSONValue? {
        guard !bytes.isEmpty else { return nil }
        return try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    /// A JSON object's members, or nil when the body is not an object.
    package static func object(_ bytes: [UInt8]) -> [String: JSONValue]? {
        guard case .object(let members)? = parse(bytes) else { return nil }
        return members
    }
}
