import Foundation
import Glibc
@testable import ApsioTestSupport
import Testing

/// apsiod holds device tokens, tester proofs and app keys in memory only; a core dump would put
/// them on disk. The built apsiod, run as an unprivileged user as its unit runs it, and started
/// with core dumps allowed, leaves the kernel no leave to dump it.
@Suite(.serialized) struct DaemonCoreDumpTests {
    @Test func apsiodRunAsAnotherUserCannotBeDumped() async throws {
        try await AgentHarness.with { h in
            try h.writeApp()
            h.backend.setPolicy(try h.policy(live: false))
            for directory in [h.state, h.runtime] { chown(directory, ProcessDumpability.nobody, ProcessDumpability.nogroup) }
            try h.start(wrapper: ProcessDumpability.asNobodyWithCoreDumps)
            try await h.waitServing()
            let pid = try #require(h.daemon?.process.processIdentifier)
            let seen = try ProcessDumpability(pid: pid)
            #expect(seen.effectiveUserID == ProcessDumpability.nobody, "the daemon runs as nobody")
            #expect(seen.procOwner == 0, "/proc/\(pid) belongs to uid \(seen.procOwner): the kernel may dump apsiod")
            #expect(seen.coreLimit == "0 0", "Max core file size: \(seen.coreLimit)")
            // What apsiod does with its own /proc entries still works when they belong to root:
            // its threads are named through /proc/thread-self/comm.
            #expect(seen.threadNames.contains("apsio-readiness"), "\(seen.threadNames)")
        }
    }
}
