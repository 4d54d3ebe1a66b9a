/// `apsio.device.thermal_state` (7.8): how hot the machine runs, worst zone first.
///
/// The cases are declared from cool to hot so that `Comparable` orders them as an operator would.
package enum ThermalState: String, Sendable, Equatable, Comparable, Codable, CaseIterable {
    case nominal
    case fair
    case serious
    case critical

    private var rank: Int {
        switch self {
        case .nominal: 0
        case .fair: 1
        case .serious: 2
        case .critical: 3
        }
    }

    package static func < (lhs: ThermalState, rhs: ThermalState) -> Bool { lhs.rank < rhs.rank }

    /// The worst state over `zones`; `nil` on a machine without any zone, so the attribute is absent
    /// rather than claiming `nominal` for a machine that cannot tell.
    package static func worst(of zones: [ThermalZone]) -> ThermalState? {
        zones.map(\.state).max()
    }
}
