package import ApsioPOSIX
package import ApsioRedis

/// Where the hub keeps its devices, sign-ins and events: in Redis, shared by a fleet of instances
/// (`redis(_:clock:backendLimits:)`), or in this process (`memory(clock:channels:backendLimits:)`),
/// for the demo and one instance; several `FleetService`s given the same memory stores behave as
/// instances of one fleet, on a fake clock: the fleet's rules tried in process.
package struct FleetStores: Sendable {
    /// The Redis behind the stores, for what only it has: its connection's health, whether it
    /// keeps data on a disk (`FleetPersistence`), and whether it lost or went back on the fleet's
    /// state (`FleetEpoch`).
    package struct Redis: Sendable {
        package let client: RedisClient
        /// As the operator named it, for the log.
        package let seeds: RedisSeeds
        /// The documents again, for what only Redis's have: copies kept in this instance, and
        /// the hellos answered from them and written a moment later (`FleetHelloTouch`).
        package let documents: RedisIndexedDocuments
    }

    package var documents: any IndexedDocumentStore
    package var signIns: any ExpiringValueStore
    package var subscribing: ChannelSubscribing
    package var redis: Redis?

    package static func redis(_ seeds: RedisSeeds, clock: any AgentClock, backendLimits: BackendLimits) -> FleetStores {
        // A request waits at most this long for Redis: well inside a device's own request timeout.
        let client = RedisClient(seeds: seeds.endpoints, clock: clock, timeout: .seconds(2)) { connection in
            try await RedisDocuments.prepare(connection)
        }
        let documents = RedisIndexedDocuments(
            client: client, indexes: FleetKeys.allDevices, index: FleetKeys.devices(member:),
            cacheBytes: backendLimits.fleetDocumentCacheBytes, clock: clock)
        return FleetStores(
            documents: documents,
            signIns: RedisExpiringValues(client: client),
            subscribing: { executor, onMessage, onSubscribed in
                RedisShardedSubscriber(client: client, clock: clock, executor: executor, onMessage: onMessage, onSubscribed: onSubscribed)
            },
            redis: Redis(client: client, seeds: seeds, documents: documents))
    }

    package static func memory(
        clock: some AgentClock, channels: MemoryChannels = MemoryChannels(), backendLimits: BackendLimits = .default
    ) -> FleetStores {
        FleetStores(
            documents: MemoryIndexedDocuments(
                indexes: FleetKeys.allDevices, index: FleetKeys.devices(member:), clock: clock, maxDocuments: backendLimits.maxDevices,
                maxLogEntries: backendLimits.maxAuditEntries, published: channels.publish),
            signIns: MemoryExpiringValues(clock: clock, maxValues: backendLimits.maxSignIns),
            subscribing: channels.subscribing,
            redis: nil)
    }
}
