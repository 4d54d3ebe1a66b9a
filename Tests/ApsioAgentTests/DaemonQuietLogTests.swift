import Foundation
@testable import ApsioTestSupport
import Testing

/// What the built `apsiod` writes where its unit's sandbox refuses it a thread priority. The
/// unit's `SystemCallFilter=~@resources` makes `setpriority(2)` fail with EPERM, and a daemon
/// without CAP_SYS_NICE may not raise a thread's priority; libdispatch asks for one for each
/// worker thread and logs every refusal ("Failed to set thread priority for worker thread")
/// through syslog, so into the journal as apsiod's. An operator reading `journalctl -u apsiod`
/// must see only the lines the daemon writes on purpose. `LIBDISPATCH_LOG=stderr` sends
/// libdispatch's lines to the daemon's stderr, where the test reads them.
@Suite(.serialized) struct DaemonQuietLogTests {
    /// `setpriority(2)` refused with EPERM by a seccomp filter, as the unit's `SystemCallFilter=`
    /// with `SystemCallErrorNumber=EPERM` refuses it.
    static let seccompRefusingSetpriority = [
        "/usr/bin/python3", "-c",
        """
        import errno, os, sys, seccomp
        f = seccomp.SyscallFilter(seccomp.ALLOW)
        f.add_rule(seccomp.ERRNO(errno.EPERM), "setpriority")
        f.load()
        os.execv(sys.argv[1], sys.argv[1:])
        """,
    ]
    /// No CAP_SYS_NICE, as the unit's empty `CapabilityBoundingSet=` leaves the daemon: raising a
    /// thread's priority fails with EACCES.
    static let withoutSysNice = ["/usr/bin/setpriv", "--bounding-set", "-sys_nice", "--inh-caps", "-sys_nice", "--"]

    @Test(arguments: [("seccomp", seccompRefusingSetpriority), ("no CAP_SYS_NICE", withoutSysNice)])
    func aRefusedThreadPriorityLeavesNoLine(_ sandbox: String, _ wrapper: [String]) async throws {
        try await AgentHarness.with { h in
            try await h.serve(try h.policy(), wrapper: wrapper, environment: ["LIBDISPATCH_LOG": "stderr"])
            // Work on every path that starts tasks and threads: ingest, the control socket, a
            // live session and a command.
            try await h.journal.write([h.journal.entry(unit: AgentHarness.unit, message: "a line")])
            try await within(60, "the line at the sink") { h.backend.records.contains { $0.body == "a line" } }
            try await h.startLiveSession()
            _ = try await h.run(command: "diagnostics", id: "c1")
            #expect(await h.stop() == 0)
            let log = h.allLogs
            #expect(!log.isEmpty, "apsiod wrote nothing at all (\(sandbox))")
            let foreign = log.split(separator: "\n").filter { $0.contains("thread priority") || $0.contains("libdispatch") }
            #expect(foreign.isEmpty, "under \(sandbox), lines apsiod did not mean to write:\n\(foreign.joined(separator: "\n"))")
        }
    }
}
