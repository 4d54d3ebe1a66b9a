import ApsioRedis

/// Whether the Redis the fleet runs on keeps its data only in memory, asked of every master
/// (`CONFIG GET save`, `CONFIG GET appendonly`): the live stream must never be stored (16.7), so
/// the seconds of it that each device's recent events hold (`FleetKeys.recentEvents`) are kept
/// there only when Redis writes nothing to a disk. A Redis that snapshots, appends, or will not
/// say (`CONFIG` renamed away, as some hosted ones do) gets the events without their live data.
enum FleetPersistence {
    static func keepsNothingOnDisk(_ client: RedisClient) async -> Bool {
        // One key per bucket reaches every master that serves devices.
        let keys = (0..<FleetKeys.bucketCount).map(FleetKeys.epoch(bucket:))
        let commands = keys.flatMap { key in
            [(key: Optional(key), command: RESPCommand("CONFIG", "GET", "save")),
             (key: Optional(key), command: RESPCommand("CONFIG", "GET", "appendonly"))]
        }
        guard let replies = try? await client.sendEach(commands, timeout: .seconds(2)) else { return false }
        for (index, reply) in replies.enumerated() {
            guard let elements = reply.elements, elements.count == 2, let value = elements[1].text else { return false }
            let saves = index % 2 == 0
            if saves ? !value.allSatisfy({ $0 == " " }) : value.lowercased() != "no" { return false }
        }
        return true
    }
}
