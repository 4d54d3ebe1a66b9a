import ApsioAgent
import ApsioCore
import ApsioJSON
import Foundation
@testable import ApsioTestSupport
import Testing

/// 16.5 on the built `apsiod`: "The live channel sends every record the SDK writes for a family
/// that is not off", and nothing of a family that is: frames, metrics and lines as a team
/// watching the machine would receive them.
@Suite(.serialized) struct DaemonLiveCaptureTests {
    /// The machine the unit runs on: a laptop's sysfs (a battery at 80 %, a CPU zone past its
    /// passive trip, Wi-Fi) and the unit's processes in their cgroup, its main process running
    /// `/bin/sleep`.
    static func machine() throws -> SysfsFixture {
        let machine = try SysfsFixture.laptop()
        try machine.cgroupV2()
        try machine.symlink("proc/100/exe", to: "/bin/sleep")
        return machine
    }

    /// The daemon serving the app on `machine`, its unit active in its cgroup, a viewer watching.
    static func watched(
        _ h: AgentHarness, machine: SysfsFixture, appFile: String = "", capture: [String: JSONValue] = [:],
        sessionRate: Double = 1
    ) async throws {
        try await h.serve(
            try h.policy(capture: capture, sessionRate: sessionRate), appFile: appFile, arguments: AgentHarness.reading(machine))
        try await h.setUnit(
            [["ControlGroup", "s", SysfsFixture.unit], ["MainPID", "u", "100"]], on: SystemdMock.serviceInterface)
        try await h.startLiveSession()
    }

    /// Writes a line now and then until `condition` holds: uploads go only when there is
    /// something new (16.5), and a line is what makes one.
    static func writingLines(_ h: AgentHarness, until what: String, _ condition: @escaping @Sendable () -> Bool) async throws {
        try await poll(what, seconds: 60, every: .milliseconds(100)) {
            if condition() { return true }
            try? await h.journal.write([h.journal.entry(unit: AgentHarness.unit, message: "tick \(h.framesBodies.count)")])
            return condition()
        }
    }

    static let replayOff: [(appFile: String, capture: [String: JSONValue])] = [
        ("Families=logs errors metrics", [:]), ("", ["replay": .string("never")]),
    ]

    @Test(arguments: 0..<2)
    func replayThatIsOffSendsNoProcessFrameAndRefusesAScreenshot(_ way: Int) async throws {
        let machine = try Self.machine()
        try await AgentHarness.with { h in
            try await Self.watched(h, machine: machine, appFile: Self.replayOff[way].appFile, capture: Self.replayOff[way].capture)
            // Metrics are on: a body with them shows the readings are taken, and frames are not.
            try await Self.writingLines(h, until: "three bodies with lines, one with metrics") {
                h.framesBodies.filter { !($0["lines"]?.arrayValue ?? []).isEmpty }.count >= 3
                    && h.framesBodies.contains { $0["metrics"] != nil }
            }
            #expect(h.framesBodies.allSatisfy { $0["wireframe"] == nil }, "a process frame went out with replay off")

            let result = try await h.run(command: "screenshot", id: "shot-1")
            #expect(result["outcome"] == .string("refused"))
            #expect(result["result"]?["wireframe"] == nil)
        }
    }

    static let metricsOff: [(appFile: String, capture: [String: JSONValue])] = [
        ("Families=logs errors replay", [:]), ("", ["metrics": .string("never")]),
    ]

    @Test(arguments: 0..<2)
    func metricsThatAreOffAreNeverSent(_ way: Int) async throws {
        let machine = try Self.machine()
        try await AgentHarness.with { h in
            try await Self.watched(h, machine: machine, appFile: Self.metricsOff[way].appFile, capture: Self.metricsOff[way].capture)
            // Replay is on: the unit's process frame goes, and every body after it would have
            // carried the metrics read with it.
            try await Self.writingLines(h, until: "a process frame and three bodies after it") {
                guard let first = h.framesBodies.firstIndex(where: { $0["wireframe"] != nil }) else { return false }
                return h.framesBodies.count >= first + 4
            }
            #expect(h.framesBodies.allSatisfy { $0["metrics"] == nil }, "metrics went out with the family off")
            let frame = try #require(h.framesBodies.first { $0["wireframe"] != nil }?["wireframe"])
            #expect(frame["processes"]?.arrayValue?.contains { $0["comm"] == .string("nginx") } == true)
        }
    }

    /// "Log lines are copies of the log records the SDK writes": below the policy's
    /// `logs_min_severity` a line is neither sent nor streamed.
    @Test func aLineBelowThePolicysFloorIsNotStreamed() async throws {
        let machine = try Self.machine()
        try await AgentHarness.with { h in
            try await Self.watched(h, machine: machine, capture: ["logs_min_severity": .number(13)])
            try await h.journal.write([
                h.journal.entry(unit: AgentHarness.unit, message: "an info line", priority: 6),
                h.journal.entry(unit: AgentHarness.unit, message: "a warning", priority: 4),
            ])
            try await poll("the warning streamed and sent", seconds: 60, every: .milliseconds(100)) {
                h.streamedLines.contains("a warning") && h.backend.records.contains { $0.body == "a warning" }
            }
            #expect(!h.streamedLines.contains("an info line"))
            #expect(!h.backend.records.contains { $0.body == "an info line" })
        }
    }

    /// 16.6: under `raise_log_level` lines from DEBUG up are written and streamed whatever the
    /// policy's floor says, but the app file's `MinPriority=` (the log bridge's own floor) holds;
    /// what the raise releases reaches ingest marked `apsio.sampling.released=live`.
    @Test func aRaisedLevelStreamsAndReleasesDownToTheAppFilesFloor() async throws {
        let machine = try Self.machine()
        try await AgentHarness.with { h in
            try await Self.watched(h, machine: machine, appFile: "MinPriority=info", capture: ["logs_min_severity": .number(13)])
            let raised = try await h.run(command: "raise_log_level", id: "raise-1")
            #expect(raised["outcome"] == .string("done"))
            #expect(raised["result"]?["until"]?.numberValue != nil)

            try await h.journal.write([
                h.journal.entry(unit: AgentHarness.unit, message: "a debug line", priority: 7),
                h.journal.entry(unit: AgentHarness.unit, message: "an info line", priority: 6),
                h.journal.entry(unit: AgentHarness.unit, message: "a warning", priority: 4),
            ])
            try await poll("the warning streamed and sent", seconds: 60, every: .milliseconds(100)) {
                h.streamedLines.contains("a warning") && h.backend.records.contains { $0.body == "a warning" }
            }
            #expect(h.streamedLines.contains("an info line"), "the raise lowers the policy's floor")
            #expect(!h.streamedLines.contains("a debug line"), "MinPriority=info holds under a raise")

            let info = try #require(h.backend.records.first { $0.body == "an info line" })
            #expect(info.attributes["apsio.sampling.released"]?["stringValue"] == .string("live"))
            let warning = try #require(h.backend.records.first { $0.body == "a warning" })
            #expect(warning.attributes["apsio.sampling.released"] == nil, "a record that goes anyway is not released")
            #expect(!h.backend.records.contains { $0.body == "a debug line" })
        }
    }
}
