import ApsioCore
import ApsioPlatform
import ApsioWire
@testable import ApsioTestSupport
import Testing

@Suite struct PowerSupplyTests {
    @Test func laptopHeldAtAThresholdIsNotChargingNotUnplugged() throws {
        let laptop = try SysfsFixture.laptop()
        let battery = try #require(PowerSupplyReader(roots: laptop.roots).battery())
        #expect(battery.name == "BAT0")
        #expect(battery.level == 0.8)
        #expect(battery.state == .notCharging)
        #expect(battery.charging == false)
    }

    @Test(arguments: [("Charging", BatteryState.charging, true), ("Discharging", .unplugged, false),
                      ("Full", .full, false), ("Not charging", .notCharging, false), ("Unknown", .unknown, false),
                      ("Something new", .unknown, false)])
    func statusMapsToTheFiveStates(status: String, state: BatteryState, charging: Bool) throws {
        let laptop = try SysfsFixture.laptop()
        try laptop.attribute("sys/class/power_supply/BAT0/status", status)
        let battery = try #require(PowerSupplyReader(roots: laptop.roots).battery())
        #expect(battery.state == state)
        #expect(battery.charging == charging)
    }

    @Test func aMouseBatteryIsNotTheMachinesBattery() throws {
        let server = try SysfsFixture.server()
        try server.battery("hidpp_battery_0", status: "Discharging", capacity: 15, scope: "Device")
        #expect(PowerSupplyReader(roots: server.roots).battery() == nil)
    }

    @Test func aServerHasNoBattery() throws {
        let server = try SysfsFixture.server()
        #expect(PowerSupplyReader(roots: server.roots).battery() == nil)
        var metrics = DeviceMetrics(t: 1)
        metrics.set(battery: PowerSupplyReader(roots: server.roots).battery())
        #expect(metrics.attributes.keys.filter { $0.hasPrefix("apsio.battery") }.isEmpty)
    }

    @Test func anEmptyBatteryBayIsSkipped() throws {
        let laptop = try SysfsFixture.laptop()
        try laptop.attribute("sys/class/power_supply/BAT0/present", "0")
        try laptop.battery("BAT1", status: "Discharging", capacity: 42)
        let battery = try #require(PowerSupplyReader(roots: laptop.roots).battery())
        #expect(battery.name == "BAT1")
        #expect(battery.level == 0.42)
        #expect(battery.state == .unplugged)
    }

    @Test func withoutCapacityTheEnergyRatioGivesTheLevel() throws {
        let laptop = try SysfsFixture.laptop()
        try laptop.remove("sys/class/power_supply/BAT0/capacity")
        try laptop.attribute("sys/class/power_supply/BAT0/energy_now", "25000000")
        try laptop.attribute("sys/class/power_supply/BAT0/energy_full", "50000000")
        #expect(PowerSupplyReader(roots: laptop.roots).battery()?.level == 0.5)
        try laptop.remove("sys/class/power_supply/BAT0/energy_now")
        #expect(PowerSupplyReader(roots: laptop.roots).battery()?.level == nil)
    }
}
