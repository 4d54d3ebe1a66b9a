import ApsioCore
import ApsioPlatform
import Foundation
@testable import ApsioTestSupport
import Testing

/// Low Data Mode from NetworkManager and Low Power Mode from power-profiles-daemon (either name)
/// or the firmware's platform_profile, against python-dbusmock on a private bus.
@Suite(.serialized) struct BusDeviceModeTests {
    static let networkManager = "org.freedesktop.NetworkManager"
    static let networkManagerPath = "/org/freedesktop/NetworkManager"
    static let hadess = "net.hadess.PowerProfiles"
    static let hadessPath = "/net/hadess/PowerProfiles"
    static let upower = "org.freedesktop.UPower.PowerProfiles"
    static let upowerPath = "/org/freedesktop/UPower/PowerProfiles"

    static func supervise(_ fixture: DBusMockFixture, _ watchers: [any BusWatcher]) -> Task<Void, Never> {
        let supervisor = SystemBusSupervisor(
            address: .address(fixture.address), watchers: watchers,
            backoff: ReconnectBackoff(initial: .milliseconds(50), maximum: .milliseconds(400)))
        return Task { await supervisor.run() }
    }

    static func setMetered(_ fixture: DBusMockFixture, _ value: UInt32) async throws {
        try await fixture.mock(networkManager, networkManagerPath, "UpdateProperties", "sa{sv}", networkManager, "1",
                               "Metered", "u", String(value))
    }

    @Test func meteredSwitchesLowDataMode() async throws {
        let fixture = try DBusMockFixture()
        defer { fixture.stopAll() }
        try await fixture.startTemplate("networkmanager", busName: Self.networkManager)
        // The template has no Metered; NetworkManager always has it.
        try await fixture.mock(Self.networkManager, Self.networkManagerPath, "AddProperty", "ssv", Self.networkManager,
                               "Metered", "u", "2")
        let watcher = MeteredWatcher()
        let running = Self.supervise(fixture, [watcher])
        defer { running.cancel() }

        try await Self.setMetered(fixture, 1)
        _ = try await Eventually.first(watcher.updates, "metered: yes") { $0 }
        #expect(watcher.isLowData)

        // guess-yes is NetworkManager's guess, not the user's choice.
        try await Self.setMetered(fixture, 3)
        _ = try await Eventually.first(watcher.updates, "metered: guess-yes") { !$0 }

        try await Self.setMetered(fixture, 1)
        _ = try await Eventually.first(watcher.updates, "metered again") { $0 }
        fixture.stopService(Self.networkManager)
        _ = try await Eventually.first(watcher.updates, "NetworkManager gone") { !$0 }
        #expect(!watcher.isLowData)
    }

    @Test func networkManagerAppearingLaterIsFollowed() async throws {
        let fixture = try DBusMockFixture()
        defer { fixture.stopAll() }
        let watcher = MeteredWatcher()
        let supervisor = SystemBusSupervisor(address: .address(fixture.address), watchers: [watcher])
        let running = Task { await supervisor.run() }
        defer { running.cancel() }
        _ = try await Eventually.first(supervisor.events, "connected") { if case .connected = $0 { true } else { false } }
        #expect(!watcher.isLowData)

        try await fixture.startTemplate("networkmanager", busName: Self.networkManager)
        try await fixture.mock(Self.networkManager, Self.networkManagerPath, "AddProperty", "ssv", Self.networkManager,
                               "Metered", "u", "2")
        try await Self.setMetered(fixture, 1)
        _ = try await Eventually.first(watcher.updates, "metered after NetworkManager started") { $0 }
    }

    @Test func powerSaverSwitchesLowPowerModeUnderEitherName() async throws {
        let fixture = try DBusMockFixture()
        defer { fixture.stopAll() }
        let sysfs = try TemporaryDirectory("apsio-sysfs")
        try sysfs.write("firmware/acpi/platform_profile", "balanced\n")
        try await fixture.startTemplate("power_profiles_daemon", busName: Self.hadess)

        let watcher = PowerModeWatcher(sysfs: sysfs.path)
        let running = Self.supervise(fixture, [watcher])
        defer { running.cancel() }

        try await fixture.call(Self.hadess, Self.hadessPath, "org.freedesktop.DBus.Properties", "Set", "ssv",
                               Self.hadess, "ActiveProfile", "s", "power-saver")
        _ = try await Eventually.first(watcher.updates, "power-saver on net.hadess") { $0 }

        try await fixture.call(Self.hadess, Self.hadessPath, "org.freedesktop.DBus.Properties", "Set", "ssv",
                               Self.hadess, "ActiveProfile", "s", "balanced")
        _ = try await Eventually.first(watcher.updates, "balanced on net.hadess") { !$0 }

        // The newer name is believed over the older one when both are there, as daemon 0.20 has them.
        try await fixture.startObject(busName: Self.upower, path: Self.upowerPath, interface: Self.upower)
        try await fixture.mock(Self.upower, Self.upowerPath, "AddProperty", "ssv", Self.upower, "ActiveProfile", "s", "balanced")
        try await fixture.mock(Self.upower, Self.upowerPath, "UpdateProperties", "sa{sv}", Self.upower, "1",
                               "ActiveProfile", "s", "power-saver")
        _ = try await Eventually.first(watcher.updates, "power-saver on org.freedesktop.UPower") { $0 }
        #expect(watcher.isLowPower)
    }

    @Test func withoutTheDaemonTheFirmwareProfileCounts() async throws {
        let fixture = try DBusMockFixture()
        defer { fixture.stopAll() }
        let sysfs = try TemporaryDirectory("apsio-sysfs")
        try sysfs.write("firmware/acpi/platform_profile", "low-power\n")
        try await fixture.startTemplate("power_profiles_daemon", busName: Self.hadess, parameters: #"{"ActiveProfile": "power-saver"}"#)

        let watcher = PowerModeWatcher(sysfs: sysfs.path)
        let running = Self.supervise(fixture, [watcher])
        defer { running.cancel() }
        _ = try await Eventually.first(watcher.updates, "power-saver") { $0 }

        // The daemon is there and says performance: the firmware's low-power is not asked.
        try await fixture.call(Self.hadess, Self.hadessPath, "org.freedesktop.DBus.Properties", "Set", "ssv",
                               Self.hadess, "ActiveProfile", "s", "performance")
        _ = try await Eventually.first(watcher.updates, "performance over the firmware's low-power") { !$0 }

        fixture.stopService(Self.hadess)
        _ = try await Eventually.first(watcher.updates, "the firmware's low-power once the daemon left") { $0 }

        // Changes of the file are followed as they happen (the kernel's sysfs_notify reaches inotify).
        try sysfs.write("firmware/acpi/platform_profile", "quiet\n")
        _ = try await Eventually.first(watcher.updates, "the firmware's quiet") { !$0 }
        try sysfs.write("firmware/acpi/platform_profile", "low-power\n")
        _ = try await Eventually.first(watcher.updates, "the firmware's low-power again") { $0 }
    }
}
