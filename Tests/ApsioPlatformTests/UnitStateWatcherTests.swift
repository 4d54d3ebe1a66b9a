import ApsioCore
import ApsioPlatform
import Foundation
@testable import ApsioTestSupport
import Testing

/// The unit watcher against python-dbusmock's systemd template on a private bus.
@Suite(.serialized) struct UnitStateWatcherTests {
    @Test func activeReloadingFrozenInactiveMapToTheForeground() async throws {
        let fixture = try DBusMockFixture()
        defer { fixture.stopAll() }
        try await fixture.startTemplate("systemd", busName: SystemdMock.systemd)
        try await SystemdMock.addUnit(fixture, "foo.service")

        let watcher = UnitStateWatcher(units: ["foo.service"])
        let states = try #require(watcher.updates(for: "foo.service"))
        let (_, running) = SystemdMock.supervise(fixture, [watcher])
        defer { running.cancel() }

        let inactive = try await Eventually.first(states, "the first reading") { $0 != nil }
        #expect(inactive?.foreground == .background)
        #expect(inactive?.loadState == "loaded")
        #expect(inactive?.stateDirectories == ["foo"])
        #expect(inactive?.cacheDirectories == ["foo", "foo/thumbs"])

        try await SystemdMock.update(fixture, "foo.service", [["MainPID", "u", "4242"], ["ControlGroup", "s", "/system.slice/foo.service"]],
                              on: SystemdMock.serviceInterface)
        try await SystemdMock.update(fixture, "foo.service", [["ActiveState", "s", "active"], ["SubState", "s", "running"]])
        let active = try await Eventually.first(states, "active") { $0?.foreground == .active }
        #expect(active?.subState == "running")
        #expect(active?.mainPID == 4242)
        #expect(active?.controlGroup == "/system.slice/foo.service")
        #expect(active?.sessionID == "01234567-89ab-cdef-0123-456789abcdef")

        try await SystemdMock.update(fixture, "foo.service", [["ActiveState", "s", "reloading"], ["SubState", "s", "reload"]])
        let reloading = try await Eventually.first(states, "reloading") { $0?.activeState == "reloading" }
        #expect(reloading?.foreground == .interrupted)

        try await SystemdMock.update(fixture, "foo.service", [["ActiveState", "s", "active"], ["FreezerState", "s", "frozen"]])
        let frozen = try await Eventually.first(states, "frozen") { $0?.freezerState == "frozen" }
        #expect(frozen?.activeState == "active")
        #expect(frozen?.foreground == .interrupted)

        // StopUnit is the template's own way to stop, as systemctl stop would.
        try await fixture.call(SystemdMock.systemd, SystemdMock.manager, "org.freedesktop.systemd1.Manager", "StopUnit", "ss",
                               "foo.service", "replace")
        let stopped = try await Eventually.first(states, "inactive") { $0?.activeState == "inactive" }
        #expect(stopped?.foreground == .background)
    }

    @Test func aNewInvocationStartsANewSession() async throws {
        let fixture = try DBusMockFixture()
        defer { fixture.stopAll() }
        try await fixture.startTemplate("systemd", busName: SystemdMock.systemd)
        try await SystemdMock.addUnit(fixture, "foo.service")
        try await fixture.call(SystemdMock.systemd, SystemdMock.manager, "org.freedesktop.systemd1.Manager", "StartUnit", "ss",
                               "foo.service", "replace")

        let watcher = UnitStateWatcher(units: ["foo.service"])
        let states = try #require(watcher.updates(for: "foo.service"))
        let (_, running) = SystemdMock.supervise(fixture, [watcher])
        defer { running.cancel() }

        let first = try await Eventually.first(states, "the first invocation") { $0?.foreground == .active }
        let firstSession = try #require(first?.sessionID)

        try await SystemdMock.update(fixture, "foo.service", [["InvocationID", "ay"] + SystemdMock.bytes(SystemdMock.secondInvocation)])
        let second = try await Eventually.first(states, "the second invocation") { $0?.invocationID == SystemdMock.secondInvocation }
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
        try await fixture.startTemplate("systemd", busName: SystemdMock.systemd)

        let watcher = UnitStateWatcher(units: ["late.service"])
        let states = try #require(watcher.updates(for: "late.service"))
        let (_, running) = SystemdMock.supervise(fixture, [watcher])
        defer { running.cancel() }

        let missing = try await Eventually.first(states, "not found") { $0 != nil }
        #expect(missing == .notFound)
        #expect(missing?.foreground == .background)

        try await SystemdMock.addUnit(fixture, "late.service")
        try await fixture.call(SystemdMock.systemd, SystemdMock.manager, "org.freedesktop.systemd1.Manager", "StartUnit", "ss",
                               "late.service", "replace")
        try await fixture.mock(SystemdMock.systemd, SystemdMock.manager, "EmitSignal", "sssav", "org.freedesktop.systemd1.Manager",
                               "UnitNew", "so", "2", "s", "late.service", "o", SystemdMock.path("late.service"))
        let found = try await Eventually.first(states, "found and active") { $0?.foreground == .active }
        #expect(found?.loadState == "loaded")
    }

    /// systemd sends some properties as invalidated, without their value: the watcher reads them.
    @Test func anInvalidatedPropertyIsReadAgain() async throws {
        let fixture = try DBusMockFixture()
        defer { fixture.stopAll() }
        try await fixture.startTemplate("systemd", busName: SystemdMock.systemd)
        try await SystemdMock.addUnit(fixture, "foo.service")
        // Changes the stored value without a signal, as the invalidation below stands for.
        try await fixture.mock(SystemdMock.systemd, SystemdMock.path("foo.service"), "AddMethod", "sssss", SystemdMock.unitInterface,
                               "QuietlySetActiveState", "s", "",
                               "self.props['\(SystemdMock.unitInterface)']['ActiveState'] = args[0]")

        let watcher = UnitStateWatcher(units: ["foo.service"])
        let states = try #require(watcher.updates(for: "foo.service"))
        let (_, running) = SystemdMock.supervise(fixture, [watcher])
        defer { running.cancel() }
        _ = try await Eventually.first(states, "the first reading") { $0?.activeState == "inactive" }

        try await fixture.call(SystemdMock.systemd, SystemdMock.path("foo.service"), SystemdMock.unitInterface, "QuietlySetActiveState", "s",
                               "activating")
        try await fixture.mock(SystemdMock.systemd, SystemdMock.path("foo.service"), "EmitSignal", "sssav",
                               "org.freedesktop.DBus.Properties", "PropertiesChanged", "sa{sv}as", "3",
                               "s", SystemdMock.unitInterface, "a{sv}", "0", "as", "1", "ActiveState")
        let activating = try await Eventually.first(states, "activating") { $0?.activeState == "activating" }
        #expect(activating?.foreground == .interrupted)
    }

    /// systemd leaving the bus (re-executing, say) makes every unit unknown, which is the
    /// background; its return is read afresh.
    @Test func systemdLeavingAndComingBack() async throws {
        let fixture = try DBusMockFixture()
        defer { fixture.stopAll() }
        try await fixture.startTemplate("systemd", busName: SystemdMock.systemd)
        try await SystemdMock.addUnit(fixture, "foo.service")
        try await fixture.call(SystemdMock.systemd, SystemdMock.manager, "org.freedesktop.systemd1.Manager", "StartUnit", "ss",
                               "foo.service", "replace")

        let watcher = UnitStateWatcher(units: ["foo.service"])
        let states = try #require(watcher.updates(for: "foo.service"))
        let (_, running) = SystemdMock.supervise(fixture, [watcher])
        defer { running.cancel() }
        _ = try await Eventually.first(states, "active") { $0?.foreground == .active }

        fixture.stopService(SystemdMock.systemd)
        _ = try await Eventually.first(states, "unknown") { $0 == nil }
        #expect(Foreground(unitState: watcher.current("foo.service")) == .background)

        try await fixture.startTemplate("systemd", busName: SystemdMock.systemd)
        try await SystemdMock.addUnit(fixture, "foo.service")
        try await fixture.call(SystemdMock.systemd, SystemdMock.manager, "org.freedesktop.systemd1.Manager", "StartUnit", "ss",
                               "foo.service", "replace")
        // The new systemd announced itself before it had the unit; a finished reload reads again,
        // as real systemd's Reloading(false) after a re-exec does.
        try await fixture.mock(SystemdMock.systemd, SystemdMock.manager, "EmitSignal", "sssav", "org.freedesktop.systemd1.Manager",
                               "Reloading", "b", "1", "b", "false")
        _ = try await Eventually.first(states, "active again") { $0?.foreground == .active }
    }
}
