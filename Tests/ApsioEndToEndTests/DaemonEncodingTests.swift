import ApsioCore
import Foundation
@testable import ApsioTestSupport
import Testing

/// `Encoding=` on the built `apsiod`: OTLP/HTTP protobuf reaches a backend that reads it as the same
/// records JSON would; a backend that reads JSON only answers 415 once, and everything goes as JSON
/// from then on, nothing lost, the switch logged once; a restart tries the configured one again.
@Suite(.serialized) struct DaemonEncodingTests {
    static func lines(_ prefix: String, _ count: Int) -> [String] { (0..<count).map { "\(prefix) \($0)" } }

    @Test func protobufBatchesCarryEveryRecord() async throws {
        try await AgentHarness.with { h in
            try await h.serve(try h.policy(live: false), appFile: "Encoding=protobuf")
            let sent = Self.lines("binary", 30)
            try await h.journal.write(sent.map { h.journal.entry(unit: AgentHarness.unit, message: $0) })
            try await poll("every line at /v1/logs", seconds: 60, every: .milliseconds(100)) {
                Set(h.backend.records.map(\.body)).isSuperset(of: sent)
            }
            #expect(h.backend.sink.encodings.allSatisfy { $0 == .protobuf })
            #expect(!h.backend.sink.encodings.isEmpty)
            let record = try #require(h.backend.records.first { $0.body == "binary 0" })
            #expect(record.resource["service.name"] == "com.example.demo")
            #expect(record.uid?.count == 32)
            #expect(record.attributes["systemd.unit"]?["stringValue"] == .string(AgentHarness.unit))
        }
    }

    @Test func aBackendThatReadsJSONOnlyGetsJSONFromItsFirst415() async throws {
        try await AgentHarness.with { h in
            h.backend.refuse(.protobuf)
            try await h.serve(try h.policy(live: false), appFile: "Encoding=protobuf")
            let first = Self.lines("first", 20)
            try await h.journal.write(first.map { h.journal.entry(unit: AgentHarness.unit, message: $0) })
            try await poll("the first lines at /v1/logs", seconds: 60, every: .milliseconds(100)) {
                Set(h.backend.records.map(\.body)).isSuperset(of: first)
            }
            let second = Self.lines("second", 20)
            try await h.journal.write(second.map { h.journal.entry(unit: AgentHarness.unit, message: $0) })
            try await poll("the second lines at /v1/logs", seconds: 60, every: .milliseconds(100)) {
                Set(h.backend.records.map(\.body)).isSuperset(of: second)
            }
            #expect(h.backend.sink.encodings.first == .protobuf)
            #expect(h.backend.sink.encodings.dropFirst().allSatisfy { $0 == .json }, "\(h.backend.sink.encodings)")
            #expect(h.log.components(separatedBy: "does not take OTLP protobuf (415)").count == 2, "the switch logged once")
            #expect(!h.log.contains("the backend answered 415"), "a 415 that switches is no failure")
            // The operator sees how batches go now, and what the backend refused.
            let ingest = try await h.appStatus()?["ingest"]
            #expect(ingest?["sent_as"] == .string("json (the backend refused protobuf), gzip"))
            let text = try await h.ctl(["status", AgentHarness.app])
            #expect(text.stdout.contains("  Sent as: json (the backend refused protobuf), gzip"), "\(text.stdout)")

            // A restart tries the configured encoding again, and switches again.
            await h.stop()
            let before = h.backend.sink.encodings.count
            try h.start()
            try await h.waitServing()
            let third = Self.lines("third", 20)
            try await h.journal.write(third.map { h.journal.entry(unit: AgentHarness.unit, message: $0) })
            try await poll("the third lines at /v1/logs", seconds: 60, every: .milliseconds(100)) {
                Set(h.backend.records.map(\.body)).isSuperset(of: third)
            }
            let afterRestart = h.backend.sink.encodings.dropFirst(before)
            #expect(afterRestart.first == .protobuf)
            #expect(afterRestart.dropFirst().allSatisfy { $0 == .json })
            // Nothing was lost, and nothing sent twice.
            let bodies = h.backend.records.map(\.body)
            #expect(Set(bodies) == Set(first + second + third))
            #expect(bodies.count == Set(bodies).count)
        }
    }

    /// A backend that keeps part of an accepted batch says so in its answer (OTLP's partial
    /// success, in the batch's encoding): `apsioctl status` counts what it did not keep, the
    /// journal says why once, and nothing is sent again.
    @Test func whatTheBackendDidNotKeepIsCountedInStatus() async throws {
        try await AgentHarness.with { h in
            h.backend.acceptPartially(rejected: 3, message: "timestamp older than the retention")
            try await h.serve(try h.policy(live: false))
            let sent = Self.lines("kept in part", 10)
            try await h.journal.write(sent.map { h.journal.entry(unit: AgentHarness.unit, message: $0) })
            try await poll("the lines at /v1/logs", seconds: 60, every: .milliseconds(100)) {
                Set(h.backend.records.map(\.body)).isSuperset(of: sent)
            }
            try await poll("the count in apsioctl status", seconds: 30, every: .milliseconds(200)) {
                (try? await h.ctl(["status"]))?.stdout.contains("Not kept by the backend: 3 of the records it accepted") ?? false
            }
            let json = try await h.ctl(["--json", "status"])
            #expect(json.stdout.contains("\"rejected_records\":3"), "\(json.stdout)")
            #expect(h.log.contains("did not keep 3 of its records (timestamp older than the retention)"))
            #expect(h.backend.records.count == sent.count, "nothing sent again")
        }
    }
}
