package import ApsioJSON
import FoundationEssentials

/// Codable values as `JSONValue`, for bodies the live channel carries (process frames, metrics).
package enum JSONValueEncoding {
    package static func encode(_ value: some Encodable) -> JSONValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(value), let decoded = decode(Array(data)) else { return .null }
        return decoded
    }

    /// Parses JSON with the one strict parser (`JSONParser`), without a size limit: for bodies
    /// of our own making; nil for anything that is not JSON.
    package static func decode(_ bytes: [UInt8]) -> JSONValue? {
        guard !bytes.isEmpty else { return nil }
        return try? JSONParser(maxBytes: .max, maxDepth: 64).parse(bytes)
    }
}
