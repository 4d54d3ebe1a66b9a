internal import COpenSSL
public import ApsioCore

/// SHA-256 through OpenSSL's EVP interface, the one digest the project computes.
public struct OpenSSLSHA256: SHA256Hashing {
    public init() {}

    public func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            digest.withUnsafeMutableBufferPointer { output in
                // EVP_Digest is one-shot: no context to leak. It fails only if the library is broken
                // (no SHA-256 provider), which no caller can recover from.
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        precondition(ok == 1 && length == 32, "OpenSSL could not compute SHA-256: the library is unusable")
        return Array(digest.prefix(32))
    }
}
