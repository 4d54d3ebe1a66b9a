/// The machine's battery (7.9): the first power supply of type `Battery` whose scope is not `Device`.
public struct BatteryReading: Sendable, Equatable {
    /// The supply's name under `/sys/class/power_supply`, for messages (`BAT0`).
    public var name: String
    /// `apsio.battery.level`, 0.0–1.0; `nil` when the supply reports no charge at all.
    public var level: Double?
    /// `apsio.battery.state`.
    public var state: BatteryState

    /// `apsio.battery.charging`: true only while the status is `Charging`.
    public var charging: Bool { state == .charging }

    public init(name: String, level: Double?, state: BatteryState) {
        self.name = name
        self.level = level
        self.state = state
    }
}
