internal import COpenSSL

/// PBKDF2-HMAC-SHA256 (RFC 8018) through OpenSSL, the one password-stretching function the
/// project uses (`PasswordHash` stores its output).
package enum PBKDF2 {
    /// Iterations are capped so that a crafted accounts file cannot make one sign-in burn minutes.
    package static let maxIterations = 10_000_000

    package static func sha256(password: [UInt8], salt: [UInt8], iterations: Int, length: Int = 32) -> [UInt8] {
        precondition((1...maxIterations).contains(iterations), "PBKDF2 iterations out of range")
        precondition((1...1024).contains(length), "PBKDF2 output length out of range")
        var out = [UInt8](repeating: 0, count: length)
        let ok = password.withUnsafeBufferPointer { pass in
            salt.withUnsafeBufferPointer { salt in
                out.withUnsafeMutableBufferPointer { key in
                    pass.withMemoryRebound(to: CChar.self) { pass in
                        PKCS5_PBKDF2_HMAC(
                            pass.baseAddress, Int32(pass.count), salt.baseAddress, Int32(salt.count),
                            Int32(iterations), EVP_sha256(), Int32(key.count), key.baseAddress)
                    }
                }
            }
        }
        // It fails only when the library has no SHA-256 or no memory; nothing can go on then.
        precondition(ok == 1, "OpenSSL could not compute PBKDF2: \(OpenSSLErrors.drain())")
        return out
    }
}
