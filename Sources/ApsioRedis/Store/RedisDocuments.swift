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

    /// 128 random bits, in hex.
    static func newVersion() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(generator.next() as UInt64, radix: 16) + "." + String(generator.next() as UInt64, radix: 16)
    }
}
