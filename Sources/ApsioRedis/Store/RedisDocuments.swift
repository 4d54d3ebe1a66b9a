import ApsioNet

/// What the fleet's documents in Redis share (`RedisIndexedDocuments`): the functions loaded on
/// every connection, the versions writers choose, and how an update fails.
package enum RedisDocuments {
    package enum UpdateError: Error, Equatable, CustomStringConvertible {
        /// Still changed by others after every try: the device is too busy, the request is
        /// answered as a server error and tried again by the device.
        case contended(key: String, tries: Int)
        case unexpectedReply(String)

        package var description: String {
            switch self {
            case .contended(let key, let tries): "\(key) changed under every one of \(tries) tries"
            case .unexpectedReply(let reply): "Redis answered \(reply)"
            }
        }
    }

    /// Loads the functions (again): on every new connection, since a Redis restarted without
    /// persistence has none. `RedisClient`'s `prepare`.
    package static func prepare(_ connection: RedisConnection) async throws {
        let replies = try await connection.send(
            [RESPCommand("FUNCTION", "LOAD", "REPLACE", RedisDocumentLibrary.fleetSource)], deadline: .now + .seconds(5))
        for case .error(let message) in replies { throw UpdateError.unexpectedReply(message) }
    }

    /// 128 random bits, in hex. From OpenSSL's generator, which the kernel seeds: the system's
    /// (`SystemRandomNumberGenerator`) is a `getrandom` call for every 64 bits, two system calls
    /// for each document written, one for each hello.
    static func newVersion() -> String {
        let bytes = SecureRandom.bytes(16)
        let (high, low) = bytes.withUnsafeBytes { ($0.loadUnaligned(as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
        return String(high, radix: 16) + "." + String(low, radix: 16)
    }
}
