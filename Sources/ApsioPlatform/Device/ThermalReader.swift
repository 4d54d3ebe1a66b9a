package import ApsioCore
/// `apsio.device.thermal_state` (7.8) from `/sys/class/thermal/thermal_zone*`.
package struct ThermalReader: Sendable {
    package var roots: SysfsRoots
    package var limits: ReadLimits

    package init(roots: SysfsRoots = .system, limits: ReadLimits = .standard) {
        self.roots = roots
        self.limits = limits
    }

    /// The worst state over the zones; `nil` on a machine without a readable zone (many VMs).
    package func state() -> ThermalState? {
        ThermalState.worst(of: zones())
    }

    /// Every zone whose temperature can be read. Some sensors answer `EIO` or `ENODATA` while
    /// asleep or unplugged; such a zone says nothing, rather than 0 °C.
    package func zones() -> [ThermalZone] {
        let base = roots.sys("class/thermal")
        let names = (try? SmallFile.names(in: base, limit: limits.maxSysfsDevices * 4)) ?? []
        return names.filter { $0.hasPrefix("thermal_zone") }.prefix(limits.maxSysfsDevices).compactMap { name in
            let directory = join(base, name)
            guard let temperature = SmallFile.integer(join(directory, "temp")) else { return nil }
            return ThermalZone(name: name, millidegrees: Int(clamping: temperature), trips: trips(directory))
        }
    }

    private func trips(_ directory: String) -> [ThermalZone.Trip] {
        let names = (try? SmallFile.names(in: directory, limit: 1024)) ?? []
        return names.filter { $0.hasPrefix("trip_point_") && $0.hasSuffix("_type") }.compactMap { typeFile in
            let temperatureFile = String(typeFile.dropLast("_type".count)) + "_temp"
            guard let type = SmallFile.attribute(join(directory, typeFile)),
                let temperature = SmallFile.integer(join(directory, temperatureFile))
            else { return nil }
            return ThermalZone.Trip(type: type, millidegrees: Int(clamping: temperature))
        }
    }
}
