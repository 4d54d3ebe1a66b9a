/// Which node serves each slot of a Redis Cluster, as `CLUSTER SLOTS` told it: the master of
/// each range, and the replicas, which are asked for the map when a master is gone.
package struct RedisSlotMap: Sendable, Equatable {
    package struct Range: Sendable, Equatable {
        package var slots: ClosedRange<Int>
        package var master: RedisEndpoint
        package var replicas: [RedisEndpoint]
    }

    package private(set) var ranges: [Range]

    package init(ranges: [Range]) {
        self.ranges = ranges.sorted { $0.slots.lowerBound < $1.slots.lowerBound }
    }

    /// Parses a `CLUSTER SLOTS` reply: `[[start, end, [host, port, id, …], replicas…], …]`. Nodes
    /// that announce no host are reached at `reachedAt`'s. Nil when the reply is not one.
    package init?(clusterSlots reply: RESPValue, reachedAt: RedisEndpoint) {
        guard let entries = reply.elements else { return nil }
        var ranges: [Range] = []
        for entry in entries {
            guard let fields = entry.elements, fields.count >= 3,
                  let start = fields[0].integer, let end = fields[1].integer, start >= 0, start <= end, end < Int64(RedisHashSlot.count)
            else { return nil }
            let nodes = fields[2...].compactMap { Self.node($0, reachedAt: reachedAt) }
            guard nodes.count == fields.count - 2, let master = nodes.first else { return nil }
            ranges.append(Range(slots: Int(start)...Int(end), master: master, replicas: Array(nodes.dropFirst())))
        }
        self.init(ranges: ranges)
    }

    private static func node(_ value: RESPValue, reachedAt: RedisEndpoint) -> RedisEndpoint? {
        guard let fields = value.elements, fields.count >= 2, let host = fields[0].text, let port = fields[1].integer else { return nil }
        return RedisEndpoint(announced: Substring("\(host):\(port)"), reachedAt: reachedAt)
    }

    /// The master serving `slot`; nil when no node does (the cluster is being set up or broken).
    package func master(of slot: Int) -> RedisEndpoint? {
        var low = 0
        var high = ranges.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let range = ranges[middle]
            if slot < range.slots.lowerBound {
                high = middle - 1
            } else if slot > range.slots.upperBound {
                low = middle + 1
            } else {
                return range.master
            }
        }
        return nil
    }

    /// What a `MOVED` said: `slot` is `endpoint`'s now, until the map is read again.
    package mutating func assign(_ slot: Int, to endpoint: RedisEndpoint) {
        guard let index = ranges.firstIndex(where: { $0.slots.contains(slot) }) else {
            ranges.append(Range(slots: slot...slot, master: endpoint, replicas: []))
            ranges.sort { $0.slots.lowerBound < $1.slots.lowerBound }
            return
        }
        let range = ranges[index]
        guard range.master != endpoint else { return }
        var pieces: [Range] = []
        if range.slots.lowerBound < slot { pieces.append(Range(slots: range.slots.lowerBound...(slot - 1), master: range.master, replicas: range.replicas)) }
        pieces.append(Range(slots: slot...slot, master: endpoint, replicas: []))
        if slot < range.slots.upperBound { pieces.append(Range(slots: (slot + 1)...range.slots.upperBound, master: range.master, replicas: range.replicas)) }
        ranges.replaceSubrange(index...index, with: pieces)
    }

    /// Every master, once each, in slot order.
    package var masters: [RedisEndpoint] {
        var seen: [RedisEndpoint] = []
        for range in ranges where !seen.contains(range.master) { seen.append(range.master) }
        return seen
    }

    /// Every node named, masters first: where to ask for the map again.
    package var nodes: [RedisEndpoint] {
        var seen = masters
        for range in ranges { for replica in range.replicas where !seen.contains(replica) { seen.append(replica) } }
        return seen
    }
}
