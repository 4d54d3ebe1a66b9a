import Synchronization

/// Idle keep-alive connections, a few per origin, for ingest's back-to-back uploads. A connection
/// is either here or in the hands of exactly one request. One idle too long, or that the server
/// closed meanwhile (readable while idle), is closed instead of handed out.
final class ConnectionPool: Sendable {
    struct Key: Hashable, Sendable {
        let scheme: HTTPEndpoint.Scheme
        let host: String
        let port: Int
        /// The proxy the connection tunnels through (`host:port`), nil when direct: after the
        /// proxy settings changed, a connection made under the old ones is not reused.
        let proxy: String?

        init(_ endpoint: HTTPEndpoint, proxy: HTTPProxy? = nil) {
            scheme = endpoint.scheme
            host = endpoint.host
            port = endpoint.port
            self.proxy = proxy?.address
        }
    }

    private struct Idle {
        let transport: Transport
        let since: ContinuousClock.Instant
    }

    private let maxPerKey: Int
    private let idleTimeout: Duration
    private let idle = Mutex<[Key: [Idle]]>([:])

    init(maxPerKey: Int, idleTimeout: Duration) {
        self.maxPerKey = maxPerKey
        self.idleTimeout = idleTimeout
    }

    /// The most recently used fit connection for `key`, or nil.
    func take(_ key: Key, now: ContinuousClock.Instant) -> Transport? {
        let (found, expired) = idle.withLock { pool -> (Transport?, [Transport]) in
            var expired = pruned(&pool, now: now)
            var list = pool[key] ?? []
            var found: Transport?
            while let last = list.popLast() {
                if last.transport.isUnfitForReuse {
                    expired.append(last.transport)
                } else {
                    found = last.transport
                    break
                }
            }
            pool[key] = list.isEmpty ? nil : list
            return (found, expired)
        }
        expired.forEach { $0.close() }
        return found
    }

    func put(_ transport: Transport, for key: Key, now: ContinuousClock.Instant) {
        let surplus = idle.withLock { pool -> [Transport] in
            var surplus = pruned(&pool, now: now)
            var list = pool[key] ?? []
            list.append(Idle(transport: transport, since: now))
            if list.count > maxPerKey { surplus.append(list.removeFirst().transport) }
            pool[key] = list
            return surplus
        }
        surplus.forEach { $0.close() }
    }

    func closeAll() {
        let all = idle.withLock { pool -> [Transport] in
            defer { pool.removeAll() }
            return pool.values.flatMap { $0.map(\.transport) }
        }
        all.forEach { $0.close() }
    }

    /// Removes connections idle past the timeout from every origin; the caller closes them
    /// outside the lock.
    private func pruned(_ pool: inout [Key: [Idle]], now: ContinuousClock.Instant) -> [Transport] {
        var expired: [Transport] = []
        for (key, list) in pool {
            let fresh = list.filter { now - $0.since < idleTimeout }
            if fresh.count != list.count {
                expired += list.filter { now - $0.since >= idleTimeout }.map(\.transport)
                pool[key] = fresh.isEmpty ? nil : fresh
            }
        }
        return expired
    }
}
