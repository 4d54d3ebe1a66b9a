package import ApsioJSON

/// Reads a request body, or a document or message another instance wrote, as JSON: with the strict
/// parser that reads every body a peer sends (`JSONParser`: no duplicate keys, no invalid UTF-8),
/// so a device, the backend and the viewer never disagree about what a body said. Anything that
/// is not JSON is nil: the caller answers 400. Size is bounded before this by the server's body
/// limit (or Redis's reply limits); nesting here, deeper than any body of 16.7 goes.
///
/// It is also the fleet's hottest path: every request reads its device's document.
/// Foundation's `JSONDecoder`, which this replaces, spent a fifth of a fleet instance's CPU
/// building `JSONValue` through `Decodable`.
package enum JSONBody {
    /// Deeper than this is refused: a wireframe is the deepest body, and nests far less.
    static let maxDepth = 64

    package static func parse(_ bytes: [UInt8]) -> JSONValue? {
        guard !bytes.isEmpty else { return nil }
        return try? JSONParser(maxBytes: .max, maxDepth: maxDepth).parse(bytes)
    }

    /// A JSON object's members, or nil when the body is not an object.
    package static func object(_ bytes: [UInt8]) -> [String: JSONValue]? {
        guard case .object(let members)? = parse(bytes) else { return nil }
        return members
    }
}
