/// Where the fleet keeps its state in Redis and what it publishes on. Every name starts with
/// `apsio:` so the backend can share a Redis database with nothing of its own to collide with.
enum FleetKeys {
    /// The sorted set of every device, scored by when its document next needs attention.
    static let devices = "apsio:devices"
    /// Viewer events of every device: every instance with viewers hears them all.
    static let events = "apsio:events"
    /// "Look at this device's held `next` again": answered by the instance that holds it.
    static let wake = "apsio:wake"
    /// A random value set when Redis is first used and gone when it restarted empty.
    static let epoch = "apsio:epoch"
    /// Bumped by every instance every 2 s: a number that goes back means Redis went back in time
    /// (`FleetEpoch`).
    static let clock = "apsio:clock"

    /// The device's member in `devices`; app names never contain ':'.
    static func member(_ key: DeviceKey) -> String { key.app + ":" + key.install }

    static func device(member: String) -> DeviceKey? {
        guard let colon = member.firstIndex(of: ":") else { return nil }
        return DeviceKey(app: String(member[..<colon]), install: String(member[member.index(after: colon)...]))
    }

    static func document(_ key: DeviceKey) -> String { "apsio:device:" + member(key) }

    /// The device's audit: a sorted set by time, kept for the retention (docs/audit.md).
    static func audit(_ key: DeviceKey) -> String { "apsio:audit:" + member(key) }

    /// A sign-in by the SHA-256 of its secret token: Redis never holds a credential.
    static func signIn(tokenHash: String) -> String { "apsio:signin:" + tokenHash }
}
