import ApsioCore

/// A stored password: PBKDF2-HMAC-SHA256 with its own salt and iteration count, never the
/// password itself. Its text form is `ITERATIONS:SALT_HEX:HASH_HEX`, the tail of a line of the
/// development backend's accounts file.
package struct PasswordHash: Sendable, Equatable, CustomStringConvertible {
    /// OWASP's figure for PBKDF2-HMAC-SHA256 (2023).
    package static let defaultIterations = 600_000
    package static let saltBytes = 16
    package static let hashBytes = 32

    package let iterations: Int
    package let salt: [UInt8]
    package let hash: [UInt8]

    /// Hashes `password` with a fresh random salt.
    package init(password: String, iterations: Int = PasswordHash.defaultIterations) {
        self.init(password: password, iterations: iterations, salt: SecureRandom.bytes(Self.saltBytes))
    }

    package init(password: String, iterations: Int, salt: [UInt8]) {
        self.iterations = iterations
        self.salt = salt
        hash = PBKDF2.sha256(password: Array(password.utf8), salt: salt, iterations: iterations, length: Self.hashBytes)
    }

    /// Reads `ITERATIONS:SALT_HEX:HASH_HEX`; nil for anything else.
    package init?(text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let iterations = Int(parts[0]), (1...PBKDF2.maxIterations).contains(iterations),
            let salt = Self.bytes(hex: parts[1]), (8...64).contains(salt.count),
            let hash = Self.bytes(hex: parts[2]), hash.count == Self.hashBytes
        else { return nil }
        self.iterations = iterations
        self.salt = salt
        self.hash = hash
    }

    package var text: String { "\(iterations):\(Hex.lowercase(salt)):\(Hex.lowercase(hash))" }

    /// Whether `password` is the one this was made from. The comparison takes the same time
    /// wherever the first difference is.
    package func verifies(_ password: String) -> Bool {
        let candidate = PBKDF2.sha256(password: Array(password.utf8), salt: salt, iterations: iterations, length: hash.count)
        var difference: UInt8 = 0
        for (a, b) in zip(candidate, hash) { difference |= a ^ b }
        return difference == 0
    }

    package var description: String { "PasswordHash(pbkdf2-sha256, \(iterations) iterations)" }

    /// Names this hash without telling anything of it or of the password: a sign-in keeps it, so
    /// that a password set again (a fresh salt, another hash) ends the sign-ins made with the old
    /// one. 16 bytes of the SHA-256 of the whole line; the salt in it makes it useless for guessing.
    package var stamp: String { Hex.lowercase(Array(OpenSSLSHA256().sha256(Array(text.utf8)).prefix(16))) }

    private static func bytes(hex: Substring) -> [UInt8]? {
        guard hex.utf8.count % 2 == 0, Hex.isLowercase(String(hex), length: hex.utf8.count) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(hex.utf8.count / 2)
        var high: UInt8?
        for byte in hex.utf8 {
            let value = byte <= 0x39 ? byte - 0x30 : byte - 0x61 + 10
            if let h = high {
                out.append(h << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return out
    }
}
