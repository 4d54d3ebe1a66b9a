import ApsioCore
import ApsioPlatform
import Foundation
@testable import ApsioTestSupport
import Testing

/// The unit watcher against python-dbusmock's systemd template on a private bus.
@Suite(.serialized) struct UnitStateWatcherTests {
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

    @Test func activeReloadingFrozenInactiveMapToTheForeground() async throws {
        let fixture = try DBusMockFixture()
        defer { fixture.stopAll() }
        try await fixture.startTemplate("systemd", busName: Self.systemd)
        try await Self.addUnit(fixture, "foo.service")

        let watcher = UnitStateWatcher(units: ["foo.service"])
        let states = try #require(watcher.updates(for: "foo.service"))
        let (_, running) = Self.supervise(fixture, [watcher])
        defer { running.cancel() }

        let inactive = try await Eventually.first(states, "the first reading") { $0 != nil }
        #expect(inactive?.foreground == .background)
        #expect(inactive?.loadState == "loaded")
        #expect(inactive?.stateDirectories == ["foo"])
        #expect(inactive?.cacheDirectories == ["foo", "foo/thumbs"])

        try await Self.update(fixture, "foo.service", [["MainPID", "u", "4242"], ["ControlGroup", "s", "/system.slice/foo.service"]],
                              on: Self.serviceInterface)
        try await Self.update(fixture, "foo.service", [["ActiveState", "s", "active"], ["SubState", "s", "running"]])
        let active = try await Eventually.first(states, "active") { $0?.foreground == .active }
        #expect(active?.subState == "running")
        #expect(active?.mainPID == 4242)
        #expect(active?.controlGroup == "/system.slice/foo.service")
        #expect(active?.sessionID == "01234567-89ab-cdef-0123-456789abcdef")

        try await Self.update(fixture, "foo.service", [["ActiveState", "s", "reloading"], ["SubState", "s", "reload"]])
        let reloading = try await Eventually.first(states, "reloading") { $0?.activeState == "reloading" }
        #expect(reloading?.foreground == .interrupted)

        try await Self.update(fixture, "foo.service", [["ActiveState", "s", "active"], ["FreezerState", "s", "frozen"]])
        let frozen = try await Eventually.first(states, "frozen") { $0?.freezerState == "frozen" }
        #expect(frozen?.activeState == "active")
        #expect(frozen?.foreground == .interrupted)

        // StopUnit is the template's own way to stop, as systemctl stop would.
        try await fixture.call(Self.systemd, Self.manager, "org.freedesktop.systemd1.Manager", "StopUnit", "ss",
                               "foo.service", "replace")
        let stopped = try await Eventually.first(states, "inactive") { $0?.activeState == "inactive" }
        #expect(stopped?.foreground == .background)
    }

    @Test func aNewInvocationStartsANewSession() async throws {
        let fixture = try DBusMockFixture()
        defer { fixture.stopAll() }
        try await fixture.startTemplate("systemd", busName: Self.systemd)
        try await Self.addUnit(fixture, "foo.service")
        try await fixture.call(Self.systemd, Self.manager, "org.freedesktop.systemd1.Manager", "StartUnit", "ss",
                               "foo.service", "replace")

        let watcher = UnitStateWatcher(units: ["foo.service"])
        let states = try #require(watcher.updates(for: "foo.service"))
        let (_, running) = Self.supervise(fixture, [watcher])
        defer { running.cancel() }

        let first = try await Eventually.first(states, "the first invocation") { $0?.foreground == .active }
        let firstSession = try #require(first?.sessionID)

        try await Self.update(fixture, "foo.service", [["InvocationID", "ay"] + Self.bytes(Self.secondInvocation)])
        let second = try await Eventually.first(states, "the second invocation") { $0?.invocationID == Self.secondInvocation }
        let change = UnitStateChange.between(first, second, lastSession: firstSession)
        #expect(change.newSession == "fedcba98-7654-3210-fedc-ba9876543210")
        #expect(change.newSession != firstSession)
        #expect(change.foreground == nil)
    }

    /// A unit named in an app file before its package is installed: not found (background) until
    /// systemd announces it with UnitNew.
    @Test func aUnitThatAppearsLaterIsFollowedOnceSystemdAnnouncesIt() async throws {
        let fixture = try DBusMockFixture()
        defer { fixture.stopAll() }
        try await fixture.startTemplate("systemd", busName: Self.systemd)

        let watcher = UnitStateWatcher(units: ["late.service"])
        let states = try #require(watcher.updates(for: "late.service"))
        let (_, running) = Self.supervise(fixture, [watcher])
        defer { running.cancel() }

        let missing = try await Eventually.first(states, "not found") { $0 != nil }
        #expect(missing == .notFound)
        #expect(missing?.foreground == .background)

        try await Self.addUnit(fixture, "late.service")
        try await fixture.call(Self.systemd, Self.manager, "org.freedesktop.systemd1.Manager", "StartUnit", "ss",
                               "late.service", "replace")
        try await fixture.mock(Self.systemd, Self.manager, "EmitSignal", "sssav", "org.freedesktop.systemd1.Manager",
                               "UnitNew", "so", "2", "s", "late.service", "o", Self.path("late.service"))
        let found = try await Eventually.first(states, "found and active") { $0?.foreground == .active }
        #expect(found?.loadState == "loaded")
    }

    /// systemd sends some properties as invalidated, without their value: the watcher reads them.
    @Test func anInvalidatedPropertyIsReadAgain() async throws {
        let fixture = try DBusMockFixture()
        defer { fixture.stopAll() }
        try await fixture.startTemplate("systemd", busName: Self.systemd)
        try await Self.addUnit(fixture, "foo.service")
        // Changes the stored value without a signal, as the invalidation below stands for.
        try await fixture.mock(Self.systemd, Self.path("foo.service"), "AddMethod", "sssss", Self.unitInterface,
                               "QuietlySetActiveState", "s", "",
                               "self.props['\(Self.unitInterface)']['ActiveState'] = args[0]")

        let watcher = UnitStateWatcher(units: ["foo.service"])
        let states = try #require(watcher.updates(for: "foo.service"))
        let (_, running) = Self.supervise(fixture, [watcher])
        defer { running.cancel() }
        _ = try await Eventually.first(states, "the first reading") { $0?.activeState == "inactive" }

        try await fixture.call(Self.systemd, Self.path("foo.service"), Self.unitInterface, "QuietlySetActiveState", "s",
                               "activating")
        try await fixture.mock(Self.systemd, Self.path("foo.service"), "EmitSignal", "sssav",
                               "org.freedesktop.DBus.Properties", "PropertiesChanged", "sa{sv}as", "3",
                               "s", Self.unitInterface, "a{sv}", "0", "as", "1", "ActiveState")
        let activating = try await Eventually.first(states, "activating") { $0?.activeState == "activating" }
        #expect(activating?.foreground == .interrupted)
    }

    /// systemd leaving the bus (re-executing, say) makes every unit unknown, which is the
    /// background; its return is read afresh.
    @Test func systemdLeavingAndComingBack() async throws {
        let fixture = try DBusMockFixture()
        defer { fixture.stopAll() }
        try await fixture.startTemplate("systemd", busName: Self.systemd)
        try await Self.addUnit(fixture, "foo.service")
        try await fixture.call(Self.systemd, Self.manager, "org.freedesktop.systemd1.Manager", "StartUnit", "ss",
                               "foo.service", "replace")

        let watcher = UnitStateWatcher(units: ["foo.service"])
        let states = try #require(watcher.updates(for: "foo.service"))
        let (_, running) = Self.supervise(fixture, [watcher])
        defer { running.cancel() }
        _ = try await Eventually.first(states, "active") { $0?.foreground == .active }

        fixture.stopService(Self.systemd)
        _ = try await Eventually.first(states, "unknown") { $0 == nil }
        #expect(Foreground(unitState: watcher.current("foo.service")) == .background)

        try await fixture.startTemplate("systemd", busName: Self.systemd)
        try await Self.addUnit(fixture, "foo.service")
        try await fixture.call(Self.systemd, Self.manager, "org.freedesktop.systemd1.Manager", "StartUnit", "ss",
                               "foo.service", "replace")
        // The new systemd announced itself before it had the unit; a finished reload reads again,
        // as real systemd's Reloading(false) after a re-exec does.
        try await fixture.mock(Self.systemd, Self.manager, "EmitSignal", "sssav", "org.freedesktop.systemd1.Manager",
                               "Reloading", "b", "1", "b", "false")
        _ = try await Eventually.first(states, "active again") { $0?.foreground == .active }
    }
}
