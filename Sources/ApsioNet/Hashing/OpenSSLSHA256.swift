internal import COpenSSL
#if canImport(Glibc)
internal import Glibc
#endif
package import ApsioCore

/// SHA-256 through OpenSSL's EVP interface, the one digest the project computes.
package struct OpenSSLSHA256: SHA256Hashing {
    package init() {}

    package func sha256(_ bytes: [UInt8]) -> [UInt8] {
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
    ///
    /// Inputs of a run often share their first 64-byte block (a uid's input starts with the app's
    /// installation id and the journal file's sequence number id): once two inputs in a row do,
    /// that block is hashed once into a second context, and each input after it starts from a copy
    /// of that context, hashing one block fewer (about a quarter of the time on a uid's input).
    package func withDigester<Result>(_ body: (borrowing SHA256Digester) -> Result) -> Result {
        guard let context = EVP_MD_CTX_new() else { return fallbackDigester(body) }
        defer { EVP_MD_CTX_free(context) }
        guard let blockContext = EVP_MD_CTX_new() else { return fallbackDigester(body) }
        defer { EVP_MD_CTX_free(blockContext) }
        let md = SHA256Method.shared.md
        var firstBlock = FirstBlock()
        let digester = SHA256Digester { input, output in
            var length: UInt32 = 0
            let out = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
            let ok: Bool
            switch firstBlock.note(input) {
            case .hashed:
                ok = EVP_MD_CTX_copy_ex(context, blockContext) == 1
                    && EVP_DigestUpdate(context, input.baseAddress! + FirstBlock.size, input.count - FirstBlock.size) == 1
                    && EVP_DigestFinal_ex(context, out, &length) == 1
            case .hashNow:
                ok = EVP_DigestInit_ex2(blockContext, md, nil) == 1
                    && EVP_DigestUpdate(blockContext, input.baseAddress, FirstBlock.size) == 1
                    && EVP_MD_CTX_copy_ex(context, blockContext) == 1
                    && EVP_DigestUpdate(context, input.baseAddress! + FirstBlock.size, input.count - FirstBlock.size) == 1
                    && EVP_DigestFinal_ex(context, out, &length) == 1
            case .whole:
                ok = EVP_DigestInit_ex2(context, md, nil) == 1
                    && EVP_DigestUpdate(context, input.baseAddress, input.count) == 1
                    && EVP_DigestFinal_ex(context, out, &length) == 1
            }
            precondition(ok && length == 32, "OpenSSL could not compute SHA-256: the library is unusable")
        }
        return body(digester)
    }

    private func fallbackDigester<Result>(_ body: (borrowing SHA256Digester) -> Result) -> Result {
        body(SHA256Digester { input, output in
            let digest = sha256(Array(input))
            digest.withUnsafeBytes { output.copyMemory(from: $0) }
        })
    }
}

/// Which first block the digester's second context holds, and whether the next input may start
/// from it. An input's first block is remembered when it differs from the last one; the block is
/// hashed when the next input starts with it too, so that inputs with a new first block each time
/// cost a 64-byte comparison, not a block hashed for nothing.
private struct FirstBlock {
    static let size = 64

    enum Use {
        /// The context holds this input's first block.
        case hashed
        /// The last input started the same way: hash the block into the context, then use it.
        case hashNow
        /// Hash the input whole.
        case whole
    }

    private var bytes = [UInt8](repeating: 0, count: size)
    private var seen = false
    private var hashed = false

    mutating func note(_ input: UnsafeRawBufferPointer) -> Use {
        // Only inputs longer than a block: the rest must not be empty for the copy to pay.
        guard input.count > Self.size, let base = input.baseAddress else { return .whole }
        let same = seen && bytes.withUnsafeBytes { memcmp($0.baseAddress!, base, Self.size) == 0 }
        if same {
            defer { hashed = true }
            return hashed ? .hashed : .hashNow
        }
        bytes.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(start: base, count: Self.size)) }
        seen = true
        hashed = false
        return .whole
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
