
/// Documents in Redis, each changed by read, compute, compare-and-set (`RedisDocumentLibrary`),
/// retried when another instance changed it in between: one atomic update per device, with the
/// rules kept in pure Swift.
package struct RedisDocuments: Sendable {
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

    /// What an update decided for the document.
    package enum Change: Sendable, Equatable {
        case keep
        case write([UInt8], lifetime: Duration?)
        case delete
    }

    let client: RedisClient
    let maxTries: Int

    package init(client: RedisClient, maxTries: Int = 16) {
        self.client = client
        self.maxTries = maxTries
    }

    /// Loads the functions (again): on every new connection, since a Redis restarted without
    /// persistence has none. `RedisClient`'s `prepare`.
    package static func prepare(_ connection: RedisConnection) async throws {
        let replies = try await connection.send(
            [RedisDocumentLibrary.source, RedisDocumentLibrary.fleetSource].map { RESPCommand("FUNCTION", "LOAD", "REPLACE", $0) },
            deadline: .now + .seconds(5))
        for case .error(let message) in replies { throw UpdateError.unexpectedReply(message) }
    }

    /// The document's bytes, nil when there is none.
    package func read(_ key: String) async throws -> [UInt8]? {
        try await readVersioned(key).bytes
    }

    /// Reads the document, lets `decide` choose what becomes of it, and writes that if nobody
    /// changed it meanwhile; otherwise reads again and asks again. `decide` may run several times
    /// and must only compute. Returns what the last run of `decide` returned alongside.
    package func update<Result: Sendable>(
        _ key: String, _ decide: ([UInt8]?) throws -> (Change, Result)
    ) async throws -> Result {
        for _ in 0..<maxTries {
            let read = try await readVersioned(key)
            let (change, result) = try decide(read.bytes)
            let next: (version: String, bytes: [UInt8], lifetimeMs: Int64)
            switch change {
            case .keep:
                return result
            case .delete:
                guard read.bytes != nil else { return result }
                next = ("", [], 0)
            case .write(let bytes, let lifetime):
                let milliseconds = lifetime.map { max(1, $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) } ?? 0
                next = (Self.newVersion(), bytes, milliseconds)
            }
            let reply = try await client.send(RESPCommand([
                Array("FCALL".utf8), Array(RedisDocumentLibrary.compareAndSet.utf8), Array("1".utf8), Array(key.utf8),
                Array(read.version.utf8), Array(next.version.utf8), next.bytes, Array(String(next.lifetimeMs).utf8),
            ]), on: key)
            switch reply {
            case .integer(1): return result
            case .integer(0): continue
            default: throw UpdateError.unexpectedReply("\(reply)")
            }
        }
        throw UpdateError.contended(key: key, tries: maxTries)
    }

    private func readVersioned(_ key: String) async throws -> (version: String, bytes: [UInt8]?) {
        let reply = try await client.send(RESPCommand("HMGET", key, "v", "d"), on: key)
        guard let fields = reply.elements, fields.count == 2 else { throw UpdateError.unexpectedReply("\(reply)") }
        guard let version = fields[0].text else { return ("", nil) }
        return (version, fields[1].bytes ?? [])
    }

    /// 128 random bits, in hex.
    static func newVersion() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(generator.next() as UInt64, radix: 16) + "." + String(generator.next() as UInt64, radix: 16)
    }
}
