/// A SHA-256 function, injected so that the pure rules which need one (the tester proof and its
/// match, 16.1) stay free of C: the real one lives beside the other OpenSSL wrappers.
public protocol SHA256Hashing: Sendable {
    func sha256(_ bytes: [UInt8]) -> [UInt8]
}

extension SHA256Hashing {
    /// Lowercase hex SHA-256 of a string's UTF-8 bytes, the form the spec compares.
    public func sha256Hex(_ text: String) -> String {
        Hex.lowercase(sha256(Array(text.utf8)))
    }
}
