internal import COpenSSL

/// Random bytes from OpenSSL's CSPRNG (seeded from the kernel's `getrandom`), for secrets the
/// backend makes: device tokens, sign-in tokens, password salts, command ids.
package enum SecureRandom {
    package static func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0 && count <= Int(Int32.max), "SecureRandom.bytes: count out of range")
        var out = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return out }
        let ok = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) }
        // RAND_bytes fails only when the generator cannot be seeded; handing out a predictable
        // token instead would be worse than stopping.
        precondition(ok == 1, "OpenSSL could not produce random bytes: \(OpenSSLErrors.drain())")
        return out
    }
}
