import ApsioAgent
import ApsioCore
import ApsioJSON
import ApsioPlatform
import Foundation
@testable import ApsioTestSupport
import Testing

/// 16.4 and 16.6 on the built `apsiod`: the diagnostics record, the device token's 401s, and the
/// hello interval, against a scripted backend.
@Suite(.serialized) struct DaemonCommandTests {
    /// 16.6: "Once, off the main thread, the attributes of an apsio.diagnostics log record, which
    /// goes through ingest", released (`apsio.sampling.released=live`) where sampling and the
    /// severity floor would drop an ordinary record, with every attribute the spec lists, each in
    /// its own type.
    @Test func theDiagnosticsRecordGoesThroughIngestWithEveryAttribute() async throws {
        let machine = try DaemonLiveCaptureTests.machine()
        // The unit's StateDirectory= and CacheDirectory=, where systemd puts them.
        let directory = "apsio-e2e-\(UUID().uuidString.prefix(8).lowercased())"
        let data = "/var/lib/" + directory, cache = "/var/cache/" + directory
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.removeItem(atPath: data)
            try? FileManager.default.removeItem(atPath: cache)
        }
        try Data(repeating: 7, count: 64 * 1024).write(to: URL(fileURLWithPath: data + "/orders.db"))

        try await AgentHarness.with { h in
            try await h.serve(
                try h.policy(capture: ["logs_min_severity": .number(13)], sessionRate: 0),
                arguments: AgentHarness.reading(machine))
            try await h.setUnit([
                ["ControlGroup", "s", SysfsFixture.unit], ["MainPID", "u", "100"],
                ["StateDirectory", "as", "1", directory], ["CacheDirectory", "as", "1", directory],
            ], on: SystemdMock.serviceInterface)
            // The main process's executable read: its build-id is the Resource's from then on.
            let buildID = try #require(ResourceFactsReader().executable(path: "/bin/sleep", dpkg: nil).gnuBuildID)
            try await poll("the main executable read", seconds: 60, every: .milliseconds(100)) {
                let apps = try? await h.ctl(["--json", "apps"])
                return apps?.stdout.contains(buildID) ?? false
            }
            try await h.startLiveSession()

            let answer = try await h.run(command: "diagnostics", id: "diag-1")
            #expect(answer["outcome"] == .string("done"))
            try await poll("the diagnostics record at /v1/logs", seconds: 60, every: .milliseconds(100)) {
                h.backend.records.contains { $0.body == "apsio.diagnostics" }
            }
            let record = try #require(h.backend.records.first { $0.body == "apsio.diagnostics" })
            func value(_ key: String) -> JSONValue? { record.attributes[key] }

            #expect(value("apsio.sampling.released")?["stringValue"] == .string("live"))
            #expect(value("apsio.live.command.id")?["stringValue"] == .string("diag-1"))
            // The cgroup's anon + shmem + swap.
            #expect(value("apsio.memory.footprint")?["intValue"] == .string("13631488"))
            #expect(value("apsio.storage.app")?["intValue"]?.stringValue.flatMap(Int.init).map { $0 > 0 } == true)
            let dataBytes = value("apsio.storage.data")?["intValue"]?.stringValue.flatMap(Int.init) ?? 0
            #expect(dataBytes >= 64 * 1024, "the state directory holds a 64 KiB file")
            #expect(value("apsio.storage.cache")?["intValue"] != nil)
            #expect(value("apsio.device.thermal_state")?["stringValue"] == .string("fair"))
            #expect(value("network.connection.type")?["stringValue"] == .string("wifi"))
            #expect(value("apsio.queue.records")?["intValue"] != nil)
            #expect(value("apsio.queue.bytes")?["intValue"] != nil)
            #expect(value("apsio.battery.level")?["doubleValue"] == .number(0.8))

            // The result is the record's attributes, numbers as numbers.
            let result = try #require(answer["result"])
            #expect(result["apsio.battery.level"] == .number(0.8))
            #expect(result["apsio.memory.footprint"] == .number(13_631_488))
            #expect(result["apsio.live.command.id"] == .string("diag-1"))
            #expect(result["apsio.queue.records"]?.numberValue != nil)
        }
    }

    /// 16.4: a 401 is about the token its request carried. A `results` of the last session,
    /// answered 401 after a hello gave a new token and a new session began, does not end the
    /// session that runs on the new token.
    @Test func a401ForARequestOfAnEarlierTokenDoesNotEndTheCurrentSession() async throws {
        try await AgentHarness.with { h in
            try await h.serve(try h.policy())
            try await h.startLiveSession()

            // A screenshot whose result the backend is slow to answer.
            h.live.holdResults()
            h.live.releaseNext(AgentHarness.next(commands: [("shot-1", "screenshot")]))
            try await poll("the result held, the next next held", seconds: 60, every: .milliseconds(100)) { h.live.heldResultsCount == 1 && h.live.heldNextCount == 1 }

            // The token is refused on `next`: the device says hello at once and gets another.
            h.live.answerHellos(AgentHarness.hello(viewers: 1, token: AgentHarness.otherToken))
            h.live.releaseNext(.status(401, body: [], retryAfter: nil))
            let other = DeviceToken(AgentHarness.otherToken)
            try await poll("a session on the new token, next held", seconds: 60, every: .milliseconds(100)) {
                h.live.requests(to: "/v1/live/frames").contains { $0.request.token == other && $0.body?["state"] == .string("live") }
                    && h.live.heldNextCount == 1
            }

            // The slow result's 401 comes now: it was sent with the old token.
            h.live.releaseResults(.status(401, body: [], retryAfter: nil))
            // The session on the new token still serves commands.
            let result = try await h.run(command: "screenshot", id: "shot-2")
            #expect(result["outcome"] != nil)
            let shot2 = try #require(h.live.requests(to: "/v1/live/results").first { $0.body?["id"] == .string("shot-2") })
            #expect(shot2.request.token == other)
        }
    }

    /// 16.4: the hello interval is the last hello answer's `interval_s`; a policy fetched again
    /// with another `live.interval_s` does not put that back under the backoff.
    @Test func aPolicyChangeDoesNotResetTheHelloAnswersInterval() async throws {
        try await AgentHarness.with { h in
            try await h.serve(try h.policy(interval: 120))
            h.live.answerHellos(AgentHarness.hello(viewers: 0, token: nil, interval: 15))
            #expect(try await h.ctl(["allow-live", "on", AgentHarness.app]).status == 0)
            try await h.activateUnit()
            try await poll("the first hello answered", seconds: 60, every: .milliseconds(100)) { h.hellos.count == 1 }

            // The policy changes its interval; the next hello fails.
            h.backend.setPolicy(try h.policy(interval: 100))
            let policies = h.backend.policyRequests
            #expect(try await h.ctl(["reload"]).status == 0)
            try await poll("the policy fetched again", seconds: 30, every: .milliseconds(100)) { h.backend.policyRequests > policies }
            h.live.answerNextHellos([.status(503, body: [], retryAfter: nil)])
            try await poll("the second hello, 15 s after the first", seconds: 60, every: .milliseconds(100)) { h.hellos.count == 2 }
            // The backoff starts from the answer's 15 s, not the policy's 100 s.
            try await poll("the third hello, 15 s after the failed one", seconds: 45, every: .milliseconds(100)) { h.hellos.count == 3 }
        }
    }
}
