import ApsioCore
import Foundation
@testable import ApsioTestSupport
import Testing

/// `Header=` and `HeaderFile=` on the built `apsiod`: every batch carries a collector's tenant and a
/// vendor's key, and nothing else does; the key from its file is in no log line and no state file.
@Suite(.serialized) struct DaemonCollectorHeadersTests {
    static let tenant = "tenant-5e2b"
    static let vendorKey = "vk_live_3d8f0a6c1e"

    @Test func everyBatchCarriesTheAppsHeadersAndNothingElseDoes() async throws {
        try await AgentHarness.with { h in
            let keyFile = h.root.path + "/collector-key"
            try "Bearer \(Self.vendorKey)\n".write(toFile: keyFile, atomically: true, encoding: .utf8)
            chmod(keyFile, 0o640)
            try await h.serve(
                try h.policy(), appFile: "Header=X-Scope-OrgID: \(Self.tenant)\nHeaderFile=Authorization: \(keyFile)")
            try await h.startLiveSession()
            let sent = (0..<5).map { "with headers \($0)" }
            try await h.journal.write(sent.map { h.journal.entry(unit: AgentHarness.unit, message: $0) })
            try await poll("the lines at /v1/logs", seconds: 60, every: .milliseconds(100)) {
                Set(h.backend.records.map(\.body)).isSuperset(of: sent)
            }
            let seen = h.backend.headersSeen
            let logs = seen.filter { $0.path == "/v1/logs" }
            #expect(!logs.isEmpty)
            for request in logs {
                #expect(request.headers["X-Scope-OrgID"] == Self.tenant)
                #expect(request.headers["Authorization"] == "Bearer \(Self.vendorKey)")
                #expect(request.headers["Apsio-App-Key"] == AgentHarness.appKey)
            }
            // The policy and the live channel go to the backend, not the collector: without them.
            let others = seen.filter { $0.path != "/v1/logs" }
            #expect(others.contains { $0.path == "/v1/live/hello" })
            for request in others {
                #expect(request.headers["X-Scope-OrgID"] == nil && request.headers["Authorization"] == nil, "\(request.path)")
            }
            // The key is in no log line and no file apsiod wrote.
            #expect(!h.allLogs.contains(Self.vendorKey))
            let written = try h.root.files(under: "state").compactMap { relative in
                FileManager.default.contents(atPath: h.state + "/" + relative).map { (relative, $0) }
            }
            #expect(written.contains { $0.0.hasSuffix("cursor") }, "the state files were read: \(written.map(\.0))")
            for (path, bytes) in written {
                #expect(bytes.range(of: Data(Self.vendorKey.utf8)) == nil, "\(path)")
            }
            let status = try await h.ctl(["--json", "status"])
            #expect(!status.stdout.contains(Self.vendorKey))
        }
    }
}
