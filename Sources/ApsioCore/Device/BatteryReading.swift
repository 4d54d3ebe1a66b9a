/// The machine's battery (7.9): the first power supply of type `Battery` whose scope is not `Device`.
package struct BatteryReading: Sendable, Equatable {
    /// The supply's name under `/sys/class/power_supply`, for messages (`BAT0`).
    package var name: String
    /// `apsio.battery.level`, 0.0–1.0; `nil` when the supply reports no charge at all.
    package var level: Double?
    /// `apsio.battery.state`.
    package var state: BatteryState

    /// `apsio.battery.charging`: true only while the status is `Charging`.
    package var charging: Bool { state == .charging }

    package init(name: String, level: Double?, state: BatteryState) {
        self.name = name
        self.level = level
        self.state = state
    }
}
