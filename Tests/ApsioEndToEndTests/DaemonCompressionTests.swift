import ApsioCore
import Foundation
@testable import ApsioTestSupport
import Testing

/// `Compression=` on the built `apsiod`: zstd bodies reach a backend that reads them as the same
/// records; a backend that does not read zstd refuses the first batch (400, as the OpenTelemetry
/// collector does, or 415), and everything goes gzipped from then on, nothing lost or sent twice,
/// the fallback logged once and no failure; a restart tries zstd again.
@Suite(.serialized) struct DaemonCompressionTests {
    static func lines(_ prefix: String, _ count: Int) -> [String] { (0..<count).map { "\(prefix) \($0)" } }

    @Test func zstdBatchesCarryEveryRecord() async throws {
        try await AgentHarness.with { h in
            try await h.serve(try h.policy(live: false), appFile: "Compression=zstd")
            let sent = Self.lines("small", 30)
            try await h.journal.write(sent.map { h.journal.entry(unit: AgentHarness.unit, message: $0) })
            try await poll("every line at /v1/logs", seconds: 60, every: .milliseconds(100)) {
                Set(h.backend.records.map(\.body)).isSuperset(of: sent)
            }
            #expect(!h.backend.sink.compressions.isEmpty)
            #expect(h.backend.sink.compressions.allSatisfy { $0 == "zstd" }, "\(h.backend.sink.compressions)")
            let bodies = h.backend.records.map(\.body)
            #expect(bodies.count == Set(bodies).count, "nothing sent twice")
            #expect(h.backend.records.first { $0.body == "small 0" }?.resource["service.name"] == "com.example.demo")
        }
    }

    /// Without the key the daemon gzips, as it always did.
    @Test func gzipByDefault() async throws {
        try await AgentHarness.with { h in
            try await h.serve(try h.policy(live: false))
            let sent = Self.lines("default", 5)
            try await h.journal.write(sent.map { h.journal.entry(unit: AgentHarness.unit, message: $0) })
            try await poll("every line at /v1/logs", seconds: 60, every: .milliseconds(100)) {
                Set(h.backend.records.map(\.body)).isSuperset(of: sent)
            }
            #expect(h.backend.sink.compressions.allSatisfy { $0 == "gzip" }, "\(h.backend.sink.compressions)")
        }
    }

    @Test(arguments: [400, 415])
    func aBackendThatDoesNotReadZstdGetsGzipFromItsFirstRefusal(status: Int) async throws {
        try await AgentHarness.with { h in
            h.backend.refuseZstd(with: status)
            try await h.serve(try h.policy(live: false), appFile: "Compression=zstd")
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
            let compressions = h.backend.sink.compressions
            #expect(compressions.first == "zstd")
            #expect(compressions.dropFirst().allSatisfy { $0 == "gzip" }, "\(compressions)")
            #expect(h.log.components(separatedBy: "does not take zstd bodies (\(status))").count == 2, "the fallback logged once")
            #expect(!h.log.contains("the backend answered \(status)"), "a refusal of zstd is no failure")
            #expect(!h.log.contains("its records are dropped"), "nothing dropped")
            // What apsioctl status shows: nothing dropped, no failure.
            let shown = try await h.ctl(["--json", "status"]).stdout
            #expect(shown.contains("\"dropped_records\":0"), "\(shown)")
            #expect(shown.contains("\"last_failure\":null"), "\(shown)")
            let sentAs = try await h.appStatus()?["ingest"]?["sent_as"]?.stringValue ?? ""
            #expect(sentAs.hasSuffix(", gzip (the backend refused zstd)"), "\(sentAs)")

            // A restart tries zstd again, and falls back again.
            await h.stop()
            let before = h.backend.sink.compressions.count
            try h.start()
            try await h.waitServing()
            let third = Self.lines("third", 20)
            try await h.journal.write(third.map { h.journal.entry(unit: AgentHarness.unit, message: $0) })
            try await poll("the third lines at /v1/logs", seconds: 60, every: .milliseconds(100)) {
                Set(h.backend.records.map(\.body)).isSuperset(of: third)
            }
            let afterRestart = h.backend.sink.compressions.dropFirst(before)
            #expect(afterRestart.first == "zstd")
            #expect(afterRestart.dropFirst().allSatisfy { $0 == "gzip" })
            // Nothing was lost, and nothing sent twice.
            let bodies = h.backend.records.map(\.body)
            #expect(Set(bodies) == Set(first + second + third))
            #expect(bodies.count == Set(bodies).count)
        }
    }
}
