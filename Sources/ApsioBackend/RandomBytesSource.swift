import ApsioNet

/// Where the hub takes the random bytes of device tokens and command ids; tests inject a
/// predictable one.
package protocol RandomBytesSource: Sendable {
    mutating func bytes(_ count: Int) -> [UInt8]
}

/// OpenSSL's CSPRNG.
package struct SystemRandomBytes: RandomBytesSource {
    package init() {}
    package mutating func bytes(_ count: Int) -> [UInt8] { SecureRandom.bytes(count) }
}
