import ApsioCore
import ApsioPlatform
@testable import ApsioTestSupport
import Testing

@Suite struct ThermalTests {
    @Test func laptopIsFairOnceOneZonePassesItsPassiveTrip() throws {
        let laptop = try SysfsFixture.laptop()
        let reader = ThermalReader(roots: laptop.roots)
        #expect(reader.zones().map(\.name) == ["thermal_zone0", "thermal_zone1"])
        #expect(reader.zones()[1].trips.contains(ThermalZone.Trip(type: "hot", millidegrees: 100_000)))
        // TCPU at 91 °C is past its passive trip (90 °C), below hot (100 °C); acpitz is cool.
        #expect(reader.state() == .fair)
    }

    @Test func theWorstZoneDecides() throws {
        let laptop = try SysfsFixture.laptop()
        try laptop.attribute("sys/class/thermal/thermal_zone1/temp", "100000")
        #expect(ThermalReader(roots: laptop.roots).state() == .serious)
        try laptop.attribute("sys/class/thermal/thermal_zone0/temp", "103000")
        #expect(ThermalReader(roots: laptop.roots).state() == .critical)
    }

    @Test func aZoneWithOnlyACriticalTripIsNotJudgedByTheDefaults() throws {
        let pi = try SysfsFixture.raspberryPi()
        try pi.attribute("sys/class/thermal/thermal_zone0/temp", "95000")
        // 95 °C would be serious on the defaults; this zone's firmware says 110 °C is the limit.
        #expect(ThermalReader(roots: pi.roots).state() == .nominal)
        try pi.attribute("sys/class/thermal/thermal_zone0/temp", "110000")
        #expect(ThermalReader(roots: pi.roots).state() == .critical)
    }

    @Test(arguments: [(41_000, ThermalState.nominal), (79_999, .nominal), (80_000, .fair), (90_000, .serious),
                      (99_999, .serious), (100_000, .critical)])
    func zonesWithoutTripsCountFrom80_90And100Degrees(millidegrees: Int, expected: ThermalState) throws {
        let server = try SysfsFixture.server()
        try server.attribute("sys/class/thermal/thermal_zone1/temp", String(millidegrees))
        #expect(ThermalReader(roots: server.roots).state() == expected)
    }

    @Test func aDisabledTripPlaceholderIsIgnored() {
        // x86_pkg_temp writes its unused trips as 0 °C; read literally the zone would always be hot.
        let zone = ThermalZone(name: "z", millidegrees: 50_000, trips: [.init(type: "passive", millidegrees: 0),
                                                                         .init(type: "hot", millidegrees: 90_000)])
        #expect(zone.state == .nominal)
    }

    @Test func aZoneWhoseSensorCannotBeReadSaysNothing() throws {
        let server = try SysfsFixture.server()
        try server.attribute("sys/class/thermal/thermal_zone1/temp", "")  // a sensor answering with nothing
        try server.attribute("sys/class/thermal/thermal_zone0/temp", "85000")
        let reader = ThermalReader(roots: server.roots)
        #expect(reader.zones().count == 1)
        #expect(reader.state() == .fair)
    }

    @Test func aMachineWithoutZonesHasNoThermalState() throws {
        let machine = try SysfsFixture("vm")
        #expect(ThermalReader(roots: machine.roots).state() == nil)
        #expect(ThermalReader(roots: SysfsRoots(sysfs: machine.path + "/missing")).state() == nil)
    }
}
