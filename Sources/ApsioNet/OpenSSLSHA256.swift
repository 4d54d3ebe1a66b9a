internal import COpenSSL
public import ApsioCore

/// SHA-256 through OpenSSL's EVP interface, the one digest the project computes.
public struct OpenSSLSHA256: SHA256Hashing {
    public init() {}

    public func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var length: UInt32 = 0
        var ok: Int32 = 0
        let digest = bytes.withUnsafeBytes { input in
            [UInt8](unsafeUninitializedCapacity: Int(EVP_MAX_MD_SIZE)) { output, count in
                // EVP_Digest is one-shot: no context to leak. It fails only if the library is broken
                // (no SHA-256 provider), which no caller can recover from.
                ok = EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, SHA256Method.shared.md, nil)
                count = ok == 1 ? Int(length) : 0
            }
        }
        precondition(ok == 1 && length == 32, "OpenSSL could not compute SHA-256: the library is unusable")
        return digest
    }

    /// One digest context for the whole run: `EVP_Digest` allocates, initialises and frees one
    /// for every digest, which costs more than hashing a record's uid input (about 140 bytes).
    public func withDigester<Result>(_ body: (borrowing SHA256Digester) -> Result) -> Result {
        guard let context = EVP_MD_CTX_new() else {
            return body(SHA256Digester { input, output in
                let digest = sha256(Array(input))
                digest.withUnsafeBytes { output.copyMemory(from: $0) }
            })
        }
        defer { EVP_MD_CTX_free(context) }
        let md = SHA256Method.shared.md
        let digester = SHA256Digester { input, output in
            var length: UInt32 = 0
            let ok = EVP_DigestInit_ex2(context, md, nil) == 1
                && EVP_DigestUpdate(context, input.baseAddress, input.count) == 1
                && EVP_DigestFinal_ex(context, output.baseAddress?.assumingMemoryBound(to: UInt8.self), &length) == 1
            precondition(ok && length == 32, "OpenSSL could not compute SHA-256: the library is unusable")
        }
        return body(digester)
    }
}

/// SHA-256 fetched from OpenSSL's default provider once. `EVP_sha256()` makes every digest look the
/// algorithm up again (a locked table search, more than the hash itself on a log record's ~140
/// bytes: every ingested record hashes its uid). A fetched method is immutable and may be used
/// from any thread; it lives as long as the process, so it is never freed.
private final class SHA256Method: @unchecked Sendable {
    let md: OpaquePointer?

    static let shared = SHA256Method()

    private init() {
        md = EVP_MD_fetch(nil, "SHA256", nil) ?? EVP_sha256()
    }
}
