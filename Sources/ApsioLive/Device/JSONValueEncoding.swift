package import ApsioJSON

/// JSON the daemon made itself, read back as `JSONValue`.
package enum JSONValueEncoding {
    /// Parses JSON with the one strict parser (`JSONParser`), without a size limit: for bodies
    /// of our own making; nil for anything that is not JSON.
    package static func decode(_ bytes: [UInt8]) -> JSONValue? {
        guard !bytes.isEmpty else { return nil }
        return try? JSONParser(maxBytes: .max, maxDepth: 64).parse(bytes)
    }
}
