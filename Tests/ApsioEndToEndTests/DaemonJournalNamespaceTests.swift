import ApsioCore
import Foundation
@testable import ApsioTestSupport
import Testing

/// A unit with `LogNamespace=` logs through a journald of its own to
/// `/var/log/journal/MACHINE.NAMESPACE`; the built `apsiod`, reading the system journal, reads it
/// there with no setting. The files are real journal files under a /var/log of the test's own,
/// bound over the machine's in a mount namespace of apsiod's alone (nothing of the machine's
/// /var/log is read or written).
@Suite(.serialized) struct DaemonJournalNamespaceTests {
    @Test func aUnitThatLogsToANamespaceIsReadThere() async throws {
        let machine = try String(contentsOfFile: "/etc/machine-id", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(machine.count == 32, "this test needs /etc/machine-id")
        try await AgentHarness.with { h in
            let log = try TemporaryDirectory("apsio-var-log")
            for directory in ["journal/\(machine)", "journal/\(machine).apsio"] {
                try FileManager.default.createDirectory(atPath: log.path + "/" + directory, withIntermediateDirectories: true)
            }
            let wrapper = [
                "/usr/bin/unshare", "--mount", "--", "/bin/sh", "-c", "mount --bind \"$0\" /var/log && exec \"$@\"", log.path,
            ]
            try h.writeApp()
            h.backend.setPolicy(try h.policy(live: false))
            try h.start(wrapper: wrapper, systemJournal: true)
            try await h.waitServing()

            // The default namespace holds another unit's lines; the app's unit logs to `apsio`.
            let inDefault = log.path + "/journal/\(machine)/system.journal"
            let inNamespace = log.path + "/journal/\(machine).apsio/system.journal"
            try await h.journal.write([h.journal.entry(unit: "other.service", message: "not the app's")], toPath: inDefault)
            let sent = (0..<5).map { "logged to the apsio namespace \($0)" }
            try await h.journal.write(sent.map { h.journal.entry(unit: AgentHarness.unit, message: $0) }, toPath: inNamespace)
            try await poll("the namespace's lines at the backend", seconds: 60, every: .milliseconds(100)) {
                Set(h.backend.records.map(\.body)).isSuperset(of: sent)
            }
            #expect(!h.backend.records.map(\.body).contains("not the app's"))
        }
    }
}
