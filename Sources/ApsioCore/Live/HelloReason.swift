/// Why a hello says the device cannot start a session now (16.4 `reason`); none when it can.
package enum HelloReason: String, Sendable, Equatable {
    case inactive
    case lowPower = "low_power"
    case capped
}
