package import ApsioCore
import FoundationEssentials

/// Codable values as `JSONValue`, for bodies the live channel carries (process frames, metrics).
package enum JSONValueEncoding {
    package static func encode(_ value: some Encodable) -> JSONValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(value),
            let decoded = try? JSONDecoder().decode(JSONValue.self, from: data)
        else { return .null }
        return decoded
    }

    /// Parses JSON as Foundation reads it, leniently (the first of two equal keys wins); nil for
    /// anything that is not JSON. For bodies of our own making: a peer's body goes through
    /// `JSONParser` (`LiveAnswerBody`, `PolicyParser`), which refuses what this would guess at.
    package static func decode(_ bytes: [UInt8]) -> JSONValue? {
        guard !bytes.isEmpty else { return nil }
        return try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }
}
