import ApsioPlatform
import Foundation
import Glibc
@testable import ApsioTestSupport
import Testing

/// The connection itself: calls, errors, and what a pending call sees when the bus goes.
@Suite(.serialized) struct BusConnectionTests {
    static func call(_ bus: SystemBus, _ member: String, _ arguments: [BusArgument] = []) async throws(BusError) -> BusMessage {
        try await bus.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: member, arguments: arguments)
    }

    @Test func callsAreAnsweredAndRefusalsAreTyped() async throws {
        let fixture = try DBusMockFixture()
        defer { fixture.stopAll() }
        let bus = try SystemBus(address: .address(fixture.address))
        let loop = Task { try await bus.run() }
        defer { loop.cancel() }

        let id = try await Self.call(bus, "GetId")
        #expect(id[0]?.string?.count == 32)
        let owner = try await Self.call(bus, "NameHasOwner", [.string("org.freedesktop.systemd1")])
        #expect(owner[0]?.bool == false)

        // A service that is not running is not started for us: with activation the daemon would
        // answer ServiceUnknown ("not provided by any .service files"), without it NameHasNoOwner.
        do {
            _ = try await bus.call(destination: "org.freedesktop.NetworkManager", path: "/org/freedesktop/NetworkManager",
                                   interface: "org.freedesktop.DBus.Properties", member: "GetAll",
                                   arguments: [.string("org.freedesktop.NetworkManager")])
            Issue.record("a call to a name nobody owns was answered")
        } catch {
            #expect(error.methodErrorName == "org.freedesktop.DBus.Error.NameHasNoOwner")
        }
    }

    @Test func aConnectionThatCannotBeMadeSaysWhere() throws {
        let directory = try TemporaryDirectory("apsio-nobus")
        let address = "unix:path=\(directory.path)/none.sock"
        #expect(throws: BusError.connectFailed(address: address, errno: ENOENT)) {
            try SystemBus(address: .address(address))
        }
        #expect("\(BusError.connectFailed(address: address, errno: ENOENT))"
            == "cannot connect to the system bus at \(address): No such file or directory")
    }

    /// A call in flight when the bus dies fails as a lost connection, not as the peer's refusal:
    /// the watchers keep what they knew instead of reading the service as gone.
    @Test func aPendingCallFailsAsDisconnectedWhenTheBusDies() async throws {
        let fixture = try DBusMockFixture()
        defer { fixture.stopAll() }
        let bus = try SystemBus(address: .address(fixture.address))
        let loop = Task { try await bus.run() }
        defer { loop.cancel() }
        _ = try await Self.call(bus, "GetId")

        let daemon = try #require(fixture.pid("bus"))
        kill(daemon, SIGSTOP)
        let pending = Task { () throws(BusError) -> BusMessage in try await Self.call(bus, "GetId") }
        fixture.killBus()
        // Usually the call was sent and sd-bus answers it for the dead peer (NoReply); if the loop
        // closed the bus first it is refused as closed. Never is it the peer's answer.
        do {
            _ = try await pending.value
            Issue.record("a call to a dead bus was answered")
        } catch let error as BusError {
            #expect(!error.isMethodError, "\(error)")
            #expect(error == .disconnected(errno: ECONNRESET) || error == .closed, "\(error)")
        }
        await #expect(throws: BusError.self) { try await loop.value }
        #expect(bus.isClosed)
    }

    /// Closing (the daemon shutting down) ends a call in flight at once.
    @Test func closingEndsAPendingCall() async throws {
        let fixture = try DBusMockFixture()
        defer { fixture.stopAll() }
        let bus = try SystemBus(address: .address(fixture.address))
        let loop = Task { try await bus.run() }
        _ = try await Self.call(bus, "GetId")

        let daemon = try #require(fixture.pid("bus"))
        kill(daemon, SIGSTOP)
        defer { kill(daemon, SIGCONT) }
        let pending = Task { () throws(BusError) -> BusMessage in try await Self.call(bus, "GetId") }
        loop.cancel()
        try await loop.value
        await #expect(throws: BusError.closed) { try await pending.value }
        await #expect(throws: BusError.closed) { try await Self.call(bus, "GetId") }
    }

    /// `close` from another task while the loop waits: the loop ends and closes the connection.
    @Test func closeFromAnotherTaskEndsTheLoop() async throws {
        let fixture = try DBusMockFixture()
        defer { fixture.stopAll() }
        let bus = try SystemBus(address: .address(fixture.address))
        let loop = Task { try await bus.run() }
        _ = try await Self.call(bus, "GetId")
        bus.close()
        await #expect(throws: BusError.closed) { try await loop.value }
        #expect(bus.isClosed)
        await #expect(throws: BusError.closed) { try await bus.run() }
    }

    @Test func matchRulesQuoteWhatTheyAreGiven() {
        #expect(BusMatchRule.nameOwnerChanged("org.freedesktop.NetworkManager").text
            == "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
            + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.freedesktop.NetworkManager'")
        #expect(BusMatchRule.signal(arg0: "it's").text == #"type='signal',arg0='it'\''s'"#)
    }
}
