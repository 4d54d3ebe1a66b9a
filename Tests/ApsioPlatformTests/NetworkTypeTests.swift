import ApsioCore
import ApsioPlatform
import ApsioWire
@testable import ApsioTestSupport
import Testing

@Suite struct NetworkTypeTests {
    @Test func laptopOnWifi() throws {
        let laptop = try SysfsFixture.laptop()
        let reading = NetworkTypeReader(roots: laptop.roots).read()
        #expect(reading == NetworkReading(connectionType: .wifi, vpn: false, interface: "wlp0s20f3"))
    }

    @Test func serverOnEthernet() throws {
        let server = try SysfsFixture.server()
        #expect(NetworkTypeReader(roots: server.roots).read() == NetworkReading(connectionType: .wired, vpn: false, interface: "eno1"))
    }

    @Test func theLowestMetricDefaultWins() throws {
        let pi = try SysfsFixture.raspberryPi()
        #expect(NetworkTypeReader(roots: pi.roots).read().connectionType == .wired)
        try pi.ipv4Routes([("eth0", "00000000", "00000000", 900), ("wlan0", "00000000", "00000000", 303)])
        #expect(NetworkTypeReader(roots: pi.roots).read().connectionType == .wifi)
    }

    @Test func aModemIsCell() throws {
        let machine = try SysfsFixture("modem")
        try machine.interface("wwan0", .wwan)
        try machine.ipv4Routes([("wwan0", "00000000", "00000000", 700)])
        #expect(NetworkTypeReader(roots: machine.roots).read() == NetworkReading(connectionType: .cell, vpn: false, interface: "wwan0"))
    }

    @Test func noDefaultRouteIsUnavailable() throws {
        let machine = try SysfsFixture("offline")
        try machine.interface("eth0", .ethernet)
        try machine.ipv4Routes([("eth0", "0000000A", "000000FF", 0)])
        try machine.ipv6Routes([
            // The kernel's unreachable default on lo, which is no way out.
            "00000000000000000000000000000000 00 00000000000000000000000000000000 00 00000000000000000000000000000000 ffffffff 00000001 00000000 00200200       lo"
        ])
        #expect(NetworkTypeReader(roots: machine.roots).read() == NetworkReading(connectionType: .unavailable, vpn: false))
    }

    @Test func unreadableRoutesAreUnknownAndTheVPNAbsentNotFalse() throws {
        let machine = try SysfsFixture("noroutes")
        let reading = NetworkTypeReader(roots: machine.roots).read()
        #expect(reading.connectionType == .unknown)
        #expect(reading.vpn == nil)
        var metrics = DeviceMetrics(t: 1)
        metrics.set(network: reading)
        #expect(metrics.attributes["apsio.network.vpn"] == nil)
        #expect(metrics.attributes["network.connection.type"] == .string("unknown"))
    }

    @Test func anInterfaceWithoutSysfsEntryLeavesTheVPNAbsent() throws {
        let machine = try SysfsFixture("ghost")
        try machine.ipv4Routes([("ghost0", "00000000", "00000000", 0)])
        #expect(NetworkTypeReader(roots: machine.roots).read() == NetworkReading(connectionType: .unknown, vpn: nil, interface: "ghost0"))
    }

    @Test func openVPNSplitDefaultOverWifiIsAVPNOnWifi() throws {
        let laptop = try SysfsFixture.laptop()
        try laptop.interface("tun0", .tun)
        // redirect-gateway def1: 0.0.0.0/1 and 128.0.0.0/1 through tun0, the real default kept.
        try laptop.ipv4Routes([
            ("tun0", "00000000", "00000080", 0), ("tun0", "00000080", "00000080", 0),
            ("wlp0s20f3", "00000000", "00000000", 600),
        ])
        #expect(NetworkTypeReader(roots: laptop.roots).read() == NetworkReading(connectionType: .wifi, vpn: true, interface: "tun0"))
    }

    @Test func aWireGuardDefaultAloneIsAVPNOfUnknownKind() throws {
        let machine = try SysfsFixture("wg")
        try machine.interface("wg0", .wireguard)
        try machine.interface("eth0", .ethernet)
        try machine.ipv4Routes([("wg0", "00000000", "00000000", 0), ("eth0", "0000000A", "000000FF", 0)])
        #expect(NetworkTypeReader(roots: machine.roots).read() == NetworkReading(connectionType: .unknown, vpn: true, interface: "wg0"))
    }

    @Test func aPPPDefaultIsAVPN() throws {
        let machine = try SysfsFixture("ppp")
        try machine.interface("ppp0", .ppp)
        try machine.interface("eth0", .ethernet)
        try machine.ipv4Routes([("ppp0", "00000000", "00000000", 0), ("eth0", "00000000", "00000000", 100)])
        #expect(NetworkTypeReader(roots: machine.roots).read() == NetworkReading(connectionType: .wired, vpn: true, interface: "ppp0"))
    }

    @Test func anIPv6OnlyMachine() throws {
        let machine = try SysfsFixture("v6")
        try machine.interface("eth0", .ethernet)
        try machine.ipv4Routes([])
        try machine.ipv6Routes([
            "fd000000000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth0",
            "00000000000000000000000000000000 00 00000000000000000000000000000000 00 fd000000000000000000000000000001 00000400 00000002 00000000 00000003     eth0",
        ])
        #expect(NetworkTypeReader(roots: machine.roots).read() == NetworkReading(connectionType: .wired, vpn: false, interface: "eth0"))
    }

    @Test func aRouteThatIsNotUpIsNoWayOut() throws {
        let machine = try SysfsFixture("down")
        try machine.interface("eth0", .ethernet)
        try machine.ipv4Routes([("eth0", "00000000", "00000000", 0)], flags: "0002")
        #expect(NetworkTypeReader(roots: machine.roots).read().connectionType == .unavailable)
    }
}
