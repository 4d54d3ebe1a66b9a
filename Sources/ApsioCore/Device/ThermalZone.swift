/// One `/sys/class/thermal/thermal_zone*` as read: its temperature and its trip points, in
/// millidegrees Celsius as the kernel writes them.
package struct ThermalZone: Sendable, Equatable {
    /// A trip point the kernel acts on. Only `critical`, `hot` and `passive` map to a thermal state;
    /// `active` (fans) and driver-specific kinds are kept only so a reading shows what the zone had.
    package struct Trip: Sendable, Equatable {
        package var type: String
        package var millidegrees: Int
        package init(type: String, millidegrees: Int) {
            self.type = type
            self.millidegrees = millidegrees
        }
    }

    /// Thresholds for a zone that declares none of `critical`, `hot` or `passive` (LINUX-PROFILE §7).
    package static let defaultFair = 80_000
    package static let defaultSerious = 90_000
    package static let defaultCritical = 100_000

    package var name: String
    package var millidegrees: Int
    package var trips: [Trip]

    package init(name: String, millidegrees: Int, trips: [Trip] = []) {
        self.name = name
        self.millidegrees = millidegrees
        self.trips = trips
    }

    /// The zone's state. A zone that declares some of the three mapped trip types is judged by those
    /// alone (a laptop zone with only `critical` at 105 °C is `nominal` at 95 °C, as its firmware
    /// intends); a zone that declares none counts from 80, 90 and 100 °C. Trips at or below 0 are the
    /// placeholders some drivers write for a disabled trip, and are ignored.
    package var state: ThermalState {
        let critical = lowest("critical"), hot = lowest("hot"), passive = lowest("passive")
        let thresholds: [(ThermalState, Int?)]
        if critical == nil && hot == nil && passive == nil {
            thresholds = [(.critical, Self.defaultCritical), (.serious, Self.defaultSerious), (.fair, Self.defaultFair)]
        } else {
            thresholds = [(.critical, critical), (.serious, hot), (.fair, passive)]
        }
        for case let (state, threshold?) in thresholds where millidegrees >= threshold {
            return state
        }
        return .nominal
    }

    private func lowest(_ type: String) -> Int? {
        trips.filter { $0.type == type && $0.millidegrees > 0 }.map(\.millidegrees).min()
    }
}
