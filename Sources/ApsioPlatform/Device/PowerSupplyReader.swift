package import ApsioCore
/// The machine's battery (7.9) from `/sys/class/power_supply`.
package struct PowerSupplyReader: Sendable {
    package var roots: SysfsRoots
    package var limits: ReadLimits

    package init(roots: SysfsRoots = .system, limits: ReadLimits = .standard) {
        self.roots = roots
        self.limits = limits
    }

    /// The first supply, by name, of `type` `Battery` whose `scope` is not `Device` and that is
    /// present: `Device` marks the batteries of a mouse, keyboard or headset, which say nothing of
    /// the machine's own power, and an empty battery bay reports `present` 0. `nil` on a machine
    /// without a battery, so the battery attributes are absent there.
    package func battery() -> BatteryReading? {
        let base = roots.sys("class/power_supply")
        let names = (try? SmallFile.names(in: base, limit: limits.maxSysfsDevices)) ?? []
        for name in names {
            let directory = join(base, name)
            guard SmallFile.attribute(join(directory, "type")) == "Battery",
                SmallFile.attribute(join(directory, "scope")) != "Device",
                SmallFile.attribute(join(directory, "present")) != "0"
            else { continue }
            let status = SmallFile.attribute(join(directory, "status")) ?? ""
            return BatteryReading(name: name, level: level(directory), state: BatteryState(sysfsStatus: status))
        }
        return nil
    }

    /// `capacity` / 100. Some batteries (older ACPI firmware, some SBS chargers) report no
    /// `capacity`, only their energy or charge now and when full; their ratio is the same figure.
    private func level(_ directory: String) -> Double? {
        if let capacity = SmallFile.integer(join(directory, "capacity")) {
            return Double(min(max(capacity, 0), 100)) / 100
        }
        for (now, full) in [("energy_now", "energy_full"), ("charge_now", "charge_full")] {
            if let now = SmallFile.integer(join(directory, now)), let full = SmallFile.integer(join(directory, full)),
                full > 0
            {
                return min(max(Double(now) / Double(full), 0), 1)
            }
        }
        return nil
    }
}
