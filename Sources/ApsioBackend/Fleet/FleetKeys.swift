import ApsioRedis

/// Where the fleet keeps its state in Redis and what it publishes on. Every name starts with
/// `apsio:` so the backend can share a Redis database with nothing of its own to collide with.
///
/// Devices are spread over `bucketCount` buckets, each a hash tag (`{…}`): a device's document,
/// its audit, its bucket's index, events and wake-up channels, epoch and clock all carry its
/// bucket's tag, so on a Redis Cluster they share one slot, and one master changes them in one
/// atomic step and publishes on a sharded channel of that slot (`SPUBLISH`). A tag per device
/// would spread devices finest, but nothing could then list them: the index that every instance
/// sweeps for what is due must share the slot of every document it lists. Sixteen buckets, their
/// tags chosen so that their slots fall evenly across the 16,384 (one in each 1,024), put about
/// the same share of devices on each master of a cluster of up to sixteen, whose slots
/// `redis-cli --cluster create` hands out in equal runs.
enum FleetKeys {
    static let bucketCount = 16

    /// The bucket's tag: the first text whose slot falls in the bucket's sixteenth of the slots.
    static let tags: [String] = (0..<bucketCount).map { bucket in
        let width = RedisHashSlot.count / bucketCount
        var candidate = 0
        while RedisHashSlot.slot(of: "{\(candidate)}") / width != bucket { candidate += 1 }
        return "{\(candidate)}"
    }

    /// A member's bucket (the device's `APP:INSTALL`, a sign-in's token hash).
    static func bucket(of member: String) -> Int { Int(RedisHashSlot.crc16(member.utf8) % UInt16(bucketCount)) }

    /// The sorted set of the bucket's devices, scored by when each document next needs attention.
    static func devices(bucket: Int) -> String { "apsio:devices:" + tags[bucket] }
    static let allDevices = (0..<bucketCount).map(devices(bucket:))
    /// The index `member` is listed in.
    static func devices(member: String) -> String { devices(bucket: bucket(of: member)) }

    /// The device's viewer events: only the instances serving its viewers subscribe, so a
    /// device's stream costs the instances that show it, not every instance.
    static func events(_ key: DeviceKey) -> String { "apsio:events:" + tags[bucket(of: key)] + ":" + member(key) }
    /// The device's latest viewer events, kept a little while: an instance that subscribes to the
    /// device reads them to serve a viewer whose previous poll another instance answered.
    static func recentEvents(_ key: DeviceKey) -> String { "apsio:recent:" + tags[bucket(of: key)] + ":" + member(key) }
    /// "Look at this device's held `next` again": answered by the instance that holds it. Few and
    /// small, so every instance hears every bucket's.
    static func wake(bucket: Int) -> String { "apsio:wake:" + tags[bucket] }
    static let allWakeChannels = (0..<bucketCount).map(wake(bucket:))
    static func isEvents(_ channel: String) -> Bool { channel.hasPrefix("apsio:events:") }

    /// A random value set when the bucket is first used and gone when Redis restarted empty.
    static func epoch(bucket: Int) -> String { "apsio:epoch:" + tags[bucket] }
    /// Bumped by every instance every 2 s: a number that goes back means the bucket's Redis went
    /// back in time (`FleetEpoch`).
    static func clock(bucket: Int) -> String { "apsio:clock:" + tags[bucket] }

    /// The device's member in its index; app names never contain ':'.
    static func member(_ key: DeviceKey) -> String { key.app + ":" + key.install }

    static func device(member: String) -> DeviceKey? {
        guard let colon = member.firstIndex(of: ":") else { return nil }
        return DeviceKey(app: String(member[..<colon]), install: String(member[member.index(after: colon)...]))
    }

    static func bucket(of key: DeviceKey) -> Int { bucket(of: member(key)) }

    static func document(_ key: DeviceKey) -> String { "apsio:device:" + tags[bucket(of: key)] + ":" + member(key) }

    /// The device's audit: a sorted set by time, kept for the retention (docs/audit.md).
    static func audit(_ key: DeviceKey) -> String { "apsio:audit:" + tags[bucket(of: key)] + ":" + member(key) }

    /// A sign-in by the SHA-256 of its secret token: Redis never holds a credential.
    static func signIn(tokenHash: String) -> String { "apsio:signin:" + tags[bucket(of: tokenHash)] + ":" + tokenHash }

    /// What a bucket's stale state is found by (`SCAN` patterns; a tag holds only digits and braces,
    /// which a pattern takes as themselves).
    static func stalePatterns(bucket: Int) -> [String] {
        ["apsio:device:" + tags[bucket] + ":*", "apsio:signin:" + tags[bucket] + ":*"]
    }
}
