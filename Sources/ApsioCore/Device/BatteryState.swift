/// `apsio.battery.state`: the power supply's `status`, with `Not charging` kept apart from
/// `Discharging` (a laptop held at a charge limit on mains power is not running on its battery).
package enum BatteryState: String, Sendable, Equatable, Codable, CaseIterable {
    case charging
    case full
    /// `Discharging`: the machine runs on its battery.
    case unplugged
    /// `Not charging`: on mains power, but the battery is held (charge threshold, or too hot or cold).
    case notCharging = "not_charging"
    case unknown

    /// The state for a sysfs `status` value; anything the kernel may add later is `unknown`.
    package init(sysfsStatus: String) {
        switch sysfsStatus {
        case "Charging": self = .charging
        case "Full": self = .full
        case "Discharging": self = .unplugged
        case "Not charging": self = .notCharging
        default: self = .unknown
        }
    }
}
