import ApsioCore
import ApsioPlatform
@testable import ApsioTestSupport
import Testing

/// Reading a unit's D-Bus properties into a UnitState: what systemd sends, and what a broken or
/// hostile peer might.
@Suite struct UnitStateReadingTests {
    static let invocation: [UInt8] = [0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef]

    static func bytes(_ values: [UInt8]) -> BusValue { .array(values.map(BusValue.byte)) }

    @Test func whatSystemdSends() {
        let state = UnitStateReading.state(
            unit: [
                "LoadState": .string("loaded"), "ActiveState": .string("active"), "SubState": .string("running"),
                "FreezerState": .string("running"), "InvocationID": Self.bytes(Self.invocation),
            ],
            service: [
                "MainPID": .uint32(812), "ControlGroup": .string("/system.slice/nginx.service"),
                "StateDirectory": .array([.string("nginx")]), "CacheDirectory": .array([]),
            ])
        #expect(state == UnitState(
            loadState: "loaded", activeState: "active", subState: "running", freezerState: "running",
            invocationID: "0123456789abcdef0123456789abcdef", mainPID: 812, controlGroup: "/system.slice/nginx.service",
            stateDirectories: ["nginx"], cacheDirectories: []))
        #expect(state.foreground == .active)
        #expect(state.sessionID == "01234567-89ab-cdef-0123-456789abcdef")
    }

    @Test func whatMeansNothingReadsAsAbsent() {
        let state = UnitStateReading.state(
            unit: ["ActiveState": .string("inactive"), "InvocationID": Self.bytes(Array(repeating: 0, count: 16))],
            service: ["MainPID": .uint32(0), "ControlGroup": .string("")])
        #expect(state.invocationID == nil)
        #expect(state.mainPID == nil)
        #expect(state.controlGroup == nil)
        #expect(state.freezerState == nil)
    }

    @Test func valuesOfTheWrongShapeAreIgnored() {
        let state = UnitStateReading.state(
            unit: [
                "ActiveState": .uint32(1), "InvocationID": Self.bytes(Array(Self.invocation.prefix(15))),
                "FreezerState": .array([]),
            ],
            service: [
                "MainPID": .uint32(UInt32(Int32.max) + 1), "StateDirectory": .array([.uint32(1)]),
                "CacheDirectory": .string("foo"),
            ])
        #expect(state == UnitState(activeState: ""))
        #expect(state.foreground == .background)
    }
}
