import ApsioNet

/// Where the hub takes the random bytes of device tokens and command ids; tests inject a
/// predictable one.
public protocol RandomBytesSource: Sendable {
    mutating func bytes(_ count: Int) -> [UInt8]
}

/// OpenSSL's CSPRNG.
public struct SystemRandomBytes: RandomBytesSource {
    public init() {}
    public mutating func bytes(_ count: Int) -> [UInt8] { SecureRandom.bytes(count) }
}
