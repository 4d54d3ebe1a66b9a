/// A cluster node's answer that a key is served elsewhere (the cluster specification's
/// redirections): `MOVED` for good, so the slot map is wrong and is read again; `ASK` for this one
/// request, while the slot migrates, so the map stays and the request goes there after `ASKING`.
package enum RedisRedirection: Sendable, Equatable {
    case moved(slot: Int, to: RedisEndpoint)
    case ask(slot: Int, to: RedisEndpoint)

    /// `-MOVED 3999 127.0.0.1:6381`, `-ASK 3999 [::1]:6381`; nil for any other reply. A node
    /// announcing an empty host (`:6381`) means "the host you reached me at", `reachedAt`'s.
    package init?(_ reply: RESPValue, reachedAt: RedisEndpoint) {
        guard case .error(let message) = reply else { return nil }
        let parts = message.split(separator: " ")
        guard parts.count == 3, let slot = Int(parts[1]), (0..<RedisHashSlot.count).contains(slot),
              let endpoint = RedisEndpoint(announced: parts[2], reachedAt: reachedAt)
        else { return nil }
        switch parts[0] {
        case "MOVED": self = .moved(slot: slot, to: endpoint)
        case "ASK": self = .ask(slot: slot, to: endpoint)
        default: return nil
        }
    }

    package var target: RedisEndpoint {
        switch self {
        case .moved(_, let to), .ask(_, let to): to
        }
    }
}

extension RedisEndpoint {
    /// A node as the cluster names it (`HOST:PORT`, an IPv6 host unbracketed before the last
    /// colon), in the database of `reachedAt` (a cluster has only database 0).
    package init?(announced text: Substring, reachedAt: RedisEndpoint) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port) else {
            return nil
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.isEmpty || host == "?" {
            guard case .tcp(let seedHost, _) = reachedAt.address else { return nil }
            host = seedHost
        }
        self.init(.tcp(host: host, port: port), database: reachedAt.database)
    }
}
