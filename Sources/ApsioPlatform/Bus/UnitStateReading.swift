package import ApsioCore

/// Reads a `UnitState` out of a unit object's properties as D-Bus gives them.
package enum UnitStateReading {
    /// `unit` holds `org.freedesktop.systemd1.Unit`'s properties, `service` those of
    /// `org.freedesktop.systemd1.Service` (`MainPID`, `ControlGroup`, `StateDirectory`,
    /// `CacheDirectory` live there, not on Unit). A property of the wrong type reads as absent.
    package static func state(unit: [String: BusValue], service: [String: BusValue]) -> UnitState {
        let invocation = unit["InvocationID"]?.bytes.flatMap { $0.count == 16 ? Hex.lowercase($0) : nil }
        let mainPID = service["MainPID"]?.uint32.flatMap { $0 > 0 && $0 <= UInt32(Int32.max) ? Int32($0) : nil }
        let controlGroup = service["ControlGroup"]?.string.flatMap { $0.isEmpty ? nil : $0 }
        return UnitState(
            loadState: unit["LoadState"]?.string,
            activeState: unit["ActiveState"]?.string ?? "",
            subState: unit["SubState"]?.string,
            freezerState: unit["FreezerState"]?.string,
            invocationID: invocation.flatMap { SessionID.fromInvocationID($0) == nil ? nil : $0 },
            mainPID: mainPID,
            controlGroup: controlGroup,
            stateDirectories: service["StateDirectory"]?.strings ?? [],
            cacheDirectories: service["CacheDirectory"]?.strings ?? [])
    }
}
