/// A SHA-256 function, injected so that the pure rules which need one (the tester proof and its
/// match, 16.1) stay free of C: the real one lives beside the other OpenSSL wrappers.
package protocol SHA256Hashing: Sendable {
    func sha256(_ bytes: [UInt8]) -> [UInt8]

    /// Lends `body` a digester for many digests in a row on this thread (ingest hashes every
    /// record's uid), which may reuse what each one-off digest would set up and free again.
    func withDigester<Result>(_ body: (borrowing SHA256Digester) -> Result) -> Result
}

/// Digests one input after another into 32 bytes each; lent by `SHA256Hashing.withDigester`.
package struct SHA256Digester: ~Copyable {
    private let digestInto: (UnsafeRawBufferPointer, UnsafeMutableRawBufferPointer) -> Void

    /// `digestInto` writes the SHA-256 of its first argument into the first 32 bytes of its second.
    package init(_ digestInto: @escaping (UnsafeRawBufferPointer, UnsafeMutableRawBufferPointer) -> Void) {
        self.digestInto = digestInto
    }

    /// The SHA-256 of `input` into `output`, which holds at least 32 bytes.
    package func digest(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        precondition(output.count >= 32, "a SHA-256 digest takes 32 bytes")
        digestInto(input, output)
    }
}

extension SHA256Hashing {
    /// One `sha256` call per digest, for hashers with nothing to reuse.
    package func withDigester<Result>(_ body: (borrowing SHA256Digester) -> Result) -> Result {
        let digester = SHA256Digester { input, output in
            let digest = sha256(Array(input))
            digest.withUnsafeBytes { output.copyMemory(from: $0) }
        }
        return body(digester)
    }

    /// Lowercase hex SHA-256 of a string's UTF-8 bytes, the form the spec compares.
    package func sha256Hex(_ text: String) -> String {
        Hex.lowercase(sha256(Array(text.utf8)))
    }
}
