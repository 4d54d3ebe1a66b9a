/// The one clock every instance judges expiry by (a token's, `until`, the 60 s of silence): Redis's
/// own `TIME`, so instances whose clocks disagree still agree on what has expired.
package enum RedisTime {
    /// Unix milliseconds, as Redis's clock reads now: on a cluster, the clock of the master serving
    /// `key` (any master when nil), the one whose time a change of `key` is judged by.
    package static func now(_ client: RedisClient, on key: String? = nil) async throws -> Int64 {
        try milliseconds(try await client.send(RESPCommand("TIME"), on: key))
    }

    /// A `TIME` reply in Unix milliseconds.
    package static func milliseconds(_ reply: RESPValue) throws -> Int64 {
        guard let parts = reply.elements, parts.count == 2,
              let seconds = parts[0].text.flatMap({ Int64($0) }), let micros = parts[1].text.flatMap({ Int64($0) })
        else { throw RedisDocuments.UpdateError.unexpectedReply("\(reply)") }
        return seconds * 1000 + micros / 1000
    }
}
