import ApsioCore
import ApsioPlatform
import ApsioWire
import Foundation
@testable import ApsioTestSupport
import Testing

@Suite struct DeviceMetricsTests {
    @Test func aLaptopSampleEncodesWithTheSpecsNames() throws {
        let laptop = try SysfsFixture.laptop()
        try laptop.cgroupV2()
        var metrics = DeviceMetrics(t: 1_760_000_000_000)
        metrics.memoryFootprint = MemoryFootprintReader(roots: laptop.roots).read(cgroup: SysfsFixture.unit)?.bytes
        metrics.thermalState = ThermalReader(roots: laptop.roots).state()
        metrics.set(battery: PowerSupplyReader(roots: laptop.roots).battery())
        metrics.set(network: NetworkTypeReader(roots: laptop.roots).read())
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(metrics)) as? [String: Any])
        #expect(object["t"] as? Int == 1_760_000_000_000)
        #expect(object["apsio.memory.footprint"] as? Int == 13_631_488)
        #expect(object["apsio.device.thermal_state"] as? String == "fair")
        #expect(object["apsio.battery.level"] as? Double == 0.8)
        #expect(object["apsio.battery.charging"] as? Bool == false)
        #expect(object["apsio.battery.state"] as? String == "not_charging")
        #expect(object["network.connection.type"] as? String == "wifi")
        #expect(object["apsio.network.vpn"] as? Bool == false)
        // What was not read is absent, not null.
        #expect(object["apsio.device.low_power"] == nil)
        #expect(object["apsio.storage.data"] == nil)
        #expect(metrics.attributes.count == object.count - 1)
        #expect(try JSONDecoder().decode(DeviceMetrics.self, from: JSONEncoder().encode(metrics)) == metrics)
    }

    @Test(arguments: [
        ("/usr/sbin/nginx", "nginx"),
        ("nginx: worker process", "nginx"),
        ("postgres: alice shop 10.0.0.7(5123) idle", "postgres"),
        ("sshd: alice [priv]", "sshd"),
        ("/usr/bin/python3", "python3"),
        ("./shopd", "shopd"),
        ("/opt/with\tTAB", "with"),
    ])
    func argv0KeepsTheProgramNameOnly(argv0: String, expected: String) {
        let cmdline = Array(argv0.utf8) + [0] + Array("--password=s3cret".utf8) + [0]
        #expect(ProcessName.argv0BaseName(cmdline: cmdline) == expected)
    }

    @Test func kernelThreadsAndOddFirstFieldsHaveNoArgv0() {
        #expect(ProcessName.argv0BaseName(cmdline: []) == nil)
        #expect(ProcessName.argv0BaseName(cmdline: [0, 0x41]) == nil)
        #expect(ProcessName.argv0BaseName(cmdline: Array("/".utf8)) == nil)
        #expect(ProcessName.argv0BaseName(cmdline: Array(" leading".utf8)) == nil)
        let long = ProcessName.argv0BaseName(cmdline: Array(String(repeating: "é", count: 300).utf8))
        #expect(long?.utf8.count == 254)
    }

    @Test func cpuSamplerRoundsAndSkipsTheFirstSample() {
        var sampler = ProcessCPUSampler(ticksPerSecond: 100)
        let key = ProcessCPUSampler.Key(pid: 1, startTicks: 1)
        #expect(sampler.sample([key: 1000], at: .seconds(5)).isEmpty)
        #expect(sampler.sample([key: 1033], at: .seconds(8)) == [key: 11])
        #expect(sampler.sample([key: 1233], at: .seconds(9)) == [key: 200])  // two CPUs busy
        #expect(sampler.sample([key: 1234], at: .seconds(9)).isEmpty)  // no time passed: no figure
    }
}
