/// One metrics sample (7.6–7.10, 16.5 `metrics`): each attribute by the spec's name and unit, and
/// absent when it could not be read. Encodes as the live channel's `metrics` object, `t` included.
package struct DeviceMetrics: Sendable, Equatable, Codable {
    /// `t`: when the sample was read, Unix milliseconds (wall clock, given by the caller).
    package var t: Int64
    /// `apsio.memory.footprint`, bytes.
    package var memoryFootprint: Int64?
    /// `apsio.device.thermal_state`.
    package var thermalState: ThermalState?
    /// `apsio.device.low_power`.
    package var lowPower: Bool?
    /// `apsio.battery.level`, 0.0–1.0.
    package var batteryLevel: Double?
    /// `apsio.battery.charging`.
    package var batteryCharging: Bool?
    /// `apsio.battery.state`.
    package var batteryState: BatteryState?
    /// `apsio.storage.app`, bytes.
    package var storageApp: Int64?
    /// `apsio.storage.data`, bytes.
    package var storageData: Int64?
    /// `apsio.storage.cache`, bytes.
    package var storageCache: Int64?
    /// `network.connection.type`.
    package var connectionType: ConnectionType?
    /// `apsio.network.vpn`.
    package var vpn: Bool?

    enum CodingKeys: String, CodingKey {
        case t
        case memoryFootprint = "apsio.memory.footprint"
        case thermalState = "apsio.device.thermal_state"
        case lowPower = "apsio.device.low_power"
        case batteryLevel = "apsio.battery.level"
        case batteryCharging = "apsio.battery.charging"
        case batteryState = "apsio.battery.state"
        case storageApp = "apsio.storage.app"
        case storageData = "apsio.storage.data"
        case storageCache = "apsio.storage.cache"
        case connectionType = "network.connection.type"
        case vpn = "apsio.network.vpn"
    }

    package init(t: Int64) { self.t = t }

    /// Fills the battery attributes from a reading; a machine without a battery keeps them absent.
    package mutating func set(battery: BatteryReading?) {
        batteryLevel = battery?.level
        batteryCharging = battery?.charging
        batteryState = battery?.state
    }

    package mutating func set(storage: StorageUsage) {
        storageApp = storage.app
        storageData = storage.data
        storageCache = storage.cache
    }

    package mutating func set(network: NetworkReading?) {
        connectionType = network?.connectionType
        vpn = network?.vpn
    }

    /// The sample as a log record's attributes (`apsio.diagnostics`), in key order, each value in
    /// its own type: bytes as integers, the battery level as a double (0.8 stays 0.8), flags as
    /// booleans. `t` is left out: a record has its own time.
    package var recordAttributes: [Attribute] {
        var out: [Attribute] = []
        func put(_ key: CodingKeys, _ value: AttributeValue?) {
            if let value { out.append(Attribute(key.rawValue, value)) }
        }
        put(.memoryFootprint, memoryFootprint.map(AttributeValue.int))
        put(.thermalState, thermalState.map { .string($0.rawValue) })
        put(.lowPower, lowPower.map(AttributeValue.bool))
        put(.batteryLevel, batteryLevel.map(AttributeValue.double))
        put(.batteryCharging, batteryCharging.map(AttributeValue.bool))
        put(.batteryState, batteryState.map { .string($0.rawValue) })
        put(.storageApp, storageApp.map(AttributeValue.int))
        put(.storageData, storageData.map(AttributeValue.int))
        put(.storageCache, storageCache.map(AttributeValue.int))
        put(.connectionType, connectionType.map { .string($0.rawValue) })
        put(.vpn, vpn.map(AttributeValue.bool))
        return out.sorted { $0.key < $1.key }
    }
}
