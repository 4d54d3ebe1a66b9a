import ApsioCore
import ApsioPlatform
import ApsioPOSIX
import Foundation
@testable import ApsioTestSupport
import Testing

/// dbus-daemon going away and coming back on the same socket.
@Suite(.serialized) struct BusReconnectTests {
    static let systemd = "org.freedesktop.systemd1"
    static let manager = "/org/freedesktop/systemd1"
    static let networkManager = "org.freedesktop.NetworkManager"
    static let networkManagerPath = "/org/freedesktop/NetworkManager"

    /// The supervisor's backoff waits on a manual clock, ended by the test once the supervisor is
    /// asleep in one, so the reconnection happens at a known point: after the test has put the new
    /// bus's services in place.
    static func endBackoff(_ clock: ManualAgentClock) async throws {
        try await clock.waitAsleep("the backoff's wait") { $0.count == 1 }
        // Longer than any wait of the tests' backoff.
        clock.advance(by: .seconds(1))
    }

    static func startServices(_ fixture: DBusMockFixture, activeState: String, metered: UInt32) async throws {
        try await fixture.startTemplate("systemd", busName: systemd)
        try await fixture.mock(systemd, manager, "AddMockUnit", "s", "foo.service")
        try await fixture.mock(systemd, "/org/freedesktop/systemd1/unit/foo_service", "UpdateProperties", "sa{sv}",
                               "org.freedesktop.systemd1.Unit", "1", "ActiveState", "s", activeState)
        try await fixture.startTemplate("networkmanager", busName: networkManager)
        try await fixture.mock(networkManager, networkManagerPath, "AddProperty", "ssv", networkManager, "Metered", "u",
                               String(metered))
    }

    static func isConnected(_ event: BusConnectionEvent) -> Bool {
        if case .connected = event { return true }
        return false
    }

    @Test func theBusGoingAwayAndComingBack() async throws {
        let fixture = try DBusMockFixture()
        defer { fixture.stopAll() }
        try await Self.startServices(fixture, activeState: "active", metered: 1)

        let units = UnitStateWatcher(units: ["foo.service"])
        let metered = MeteredWatcher()
        let states = try #require(units.updates(for: "foo.service"))
        let clock = ManualAgentClock()
        let supervisor = SystemBusSupervisor(
            address: .address(fixture.address), watchers: [units, metered], clock: clock)
        let running = Task { await supervisor.run() }
        defer { running.cancel() }

        _ = try await Eventually.first(supervisor.events, "connected") { Self.isConnected($0) }
        _ = try await Eventually.first(states, "active") { $0?.foreground == .active }
        _ = try await Eventually.first(metered.updates, "metered") { $0 }

        fixture.killBus()
        let lost = try await Eventually.first(supervisor.events, "the connection lost") {
            if case .lost = $0 { true } else { false }
        }
        if case .lost(let error, _) = lost { #expect("\(error)".contains("connection was lost")) }
        _ = try await Eventually.first(states, "unknown while the bus is down") { $0 == nil }
        #expect(Foreground(unitState: units.current("foo.service")) == .background)
        // The network did not change because dbus-daemon did: the last reading holds.
        #expect(metered.isLowData)

        // A new bus on the same socket, whose services now say something else.
        try fixture.startBus()
        try await Self.startServices(fixture, activeState: "reloading", metered: 2)
        try await Self.endBackoff(clock)
        _ = try await Eventually.first(supervisor.events, "connected again") { Self.isConnected($0) }
        _ = try await Eventually.first(states, "read again") { $0?.foreground == .interrupted }
        _ = try await Eventually.first(metered.updates, "not metered any more") { !$0 }
    }

    /// No bus at all: every attempt fails, each wait twice the one before up to the cap, the
    /// units are said to be unknown, and the bus is used once it is there.
    @Test func aMissingBusIsRetriedWithBackoff() async throws {
        let fixture = try DBusMockFixture()
        defer { fixture.stopAll() }
        fixture.killBus()

        let units = UnitStateWatcher(units: ["foo.service"])
        let clock = ManualAgentClock()
        let supervisor = SystemBusSupervisor(
            address: .address(fixture.address), watchers: [units],
            backoff: ReconnectBackoff(initial: .milliseconds(100), maximum: .milliseconds(400)), clock: clock)
        let running = Task { await supervisor.run() }
        defer { running.cancel() }

        // Four attempts; the fourth one's wait is let go only once the bus is there.
        var failures: [BusConnectionEvent] = []
        for attempt in 1...4 {
            failures.append(try await Eventually.first(supervisor.events, "a failed attempt") { _ in true })
            if attempt < 4 { try await Self.endBackoff(clock) }
        }
        let delays = failures.compactMap { event -> Duration? in
            if case .connectFailed(let error, let delay) = event {
                #expect("\(error)".contains("cannot connect to the system bus at \(fixture.address)"))
                return delay
            }
            return nil
        }
        #expect(delays == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(400)])
        #expect(units.current("foo.service") == nil)
        // Said, not only left unset: a watcher that replaces another must undo what it told.
        let states = try #require(units.updates(for: "foo.service"))
        let first = try await Eventually.first(states, "the unit said unknown") { _ in true }
        #expect(first == nil)

        try fixture.startBus()
        try await Self.startServices(fixture, activeState: "active", metered: 2)
        try await Self.endBackoff(clock)
        _ = try await Eventually.first(supervisor.events, "connected") { Self.isConnected($0) }
        _ = try await Eventually.first(states, "active") { $0?.foreground == .active }
    }
}
