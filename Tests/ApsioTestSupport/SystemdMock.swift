import ApsioCore
import ApsioPlatform
import Foundation

/// python-dbusmock's systemd template, completed with the unit properties real systemd has and
/// the template leaves out, for tests of everything that follows a unit's state.
enum SystemdMock {
    static let systemd = "org.freedesktop.systemd1"
    static let manager = "/org/freedesktop/systemd1"
    static let unitInterface = "org.freedesktop.systemd1.Unit"
    static let serviceInterface = "org.freedesktop.systemd1.Service"
    static let firstInvocation = "0123456789abcdef0123456789abcdef"
    static let secondInvocation = "fedcba9876543210fedcba9876543210"

    /// The template's path for a unit (it escapes `.` and `-` with `_`, unlike systemd).
    static func path(_ unit: String) -> String {
        "/org/freedesktop/systemd1/unit/" + unit.replacingOccurrences(of: ".", with: "_")
            .replacingOccurrences(of: "-", with: "_")
    }

    /// `ay` arguments for busctl: the count, then each byte.
    static func bytes(_ hex: String) -> [String] {
        let chars = Array(hex)
        let values = stride(from: 0, to: chars.count, by: 2).map { String(UInt8(String(chars[$0..<$0 + 2]), radix: 16)!) }
        return [String(values.count)] + values
    }

    /// Adds a unit with the properties real systemd has and the template leaves out.
    static func addUnit(_ fixture: DBusMockFixture, _ unit: String) async throws {
        try await fixture.mock(systemd, manager, "AddMockUnit", "s", unit)
        let path = path(unit)
        try await fixture.mock(systemd, path, "AddProperty", "ssv", unitInterface, "SubState", "s", "dead")
        try await fixture.mock(systemd, path, "AddProperty", "ssv", unitInterface, "FreezerState", "s", "running")
        try await addProperty(fixture, path, unitInterface, "InvocationID", ["ay"] + bytes(firstInvocation))
        try await fixture.mock(systemd, path, "AddProperty", "ssv", serviceInterface, "MainPID", "u", "0")
        try await fixture.mock(systemd, path, "AddProperty", "ssv", serviceInterface, "ControlGroup", "s", "")
        try await addProperty(fixture, path, serviceInterface, "StateDirectory", ["as", "1", "foo"])
        try await addProperty(fixture, path, serviceInterface, "CacheDirectory", ["as", "2", "foo", "foo/thumbs"])
    }

    static func addProperty(_ fixture: DBusMockFixture, _ path: String, _ interface: String, _ name: String,
                            _ value: [String]) async throws {
        try await fixture.run(busctl: ["call", systemd, path, "org.freedesktop.DBus.Mock", "AddProperty", "ssv",
                                       interface, name] + value)
    }

    /// Each entry is a property's name, its signature and its value as busctl spells them.
    static func update(_ fixture: DBusMockFixture, _ unit: String, _ entries: [[String]],
                       on interface: String = unitInterface) async throws {
        try await fixture.run(busctl: ["call", systemd, path(unit), "org.freedesktop.DBus.Mock", "UpdateProperties",
                                       "sa{sv}", interface, String(entries.count)] + entries.flatMap { $0 })
    }

    static func supervise(_ fixture: DBusMockFixture, _ watchers: [any BusWatcher]) -> (SystemBusSupervisor, Task<Void, Never>) {
        let supervisor = SystemBusSupervisor(
            address: .address(fixture.address), watchers: watchers,
            backoff: ReconnectBackoff(initial: .milliseconds(50), maximum: .milliseconds(400)))
        return (supervisor, Task { await supervisor.run() })
    }
}
