import ApsioCore
import Testing

@Suite struct DeviceModeTests {
    @Test func lowPowerFollowsTheDaemonFirst() {
        #expect(LowPowerMode.isOn(activeProfile: "power-saver", platformProfile: nil))
        #expect(!LowPowerMode.isOn(activeProfile: "balanced", platformProfile: "low-power\n"))
        #expect(!LowPowerMode.isOn(activeProfile: "performance", platformProfile: nil))
        #expect(LowPowerMode.isOn(activeProfile: nil, platformProfile: "low-power\n"))
        #expect(LowPowerMode.isOn(activeProfile: nil, platformProfile: "low-power"))
        #expect(!LowPowerMode.isOn(activeProfile: nil, platformProfile: "quiet\n"))
        #expect(!LowPowerMode.isOn(activeProfile: nil, platformProfile: "balanced\n"))
        #expect(!LowPowerMode.isOn(activeProfile: nil, platformProfile: nil))
    }

    @Test func onlyAnExplicitMeteredIsLowData() {
        #expect(NetworkMetered.isLowData(1))
        for raw: UInt32? in [nil, 0, 2, 3, 4, 5, .max] {
            #expect(!NetworkMetered.isLowData(raw), "Metered=\(raw.map(String.init) ?? "absent")")
        }
    }
}
