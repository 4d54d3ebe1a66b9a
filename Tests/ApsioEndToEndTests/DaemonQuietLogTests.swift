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
            try await poll("the line at the sink", seconds: 60, every: .milliseconds(100)) { h.backend.records.contains { $0.body == "a line" } }
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

/// The lines the built `apsiod` writes for an app: one prefix (the app's name, once), and a
/// level that fits what happened, so that `journalctl -p warning` shows what needs a look and not
/// what is routine.
@Suite(.serialized) struct DaemonLogLineTests {
    /// A stderr line: `apsiod: LEVEL: TEXT`.
    static func parsed(_ line: Substring) -> (level: String, text: Substring)? {
        guard line.hasPrefix("apsiod: ") else { return nil }
        let rest = line.dropFirst("apsiod: ".count)
        guard let colon = rest.firstIndex(of: ":") else { return nil }
        return (String(rest[..<colon]), rest[rest.index(after: colon)...].dropFirst())
    }

    @Test func anAppsLinesNameItOnceAtALevelThatFits() async throws {
        try await AgentHarness.with { h in
            try await h.serve(try h.policy())
            // A backend answering 503 twice: a transient failure, retried, then sent.
            h.backend.answerLogs([503, 503])
            try await h.journal.write([h.journal.entry(unit: AgentHarness.unit, message: "a line")])
            try await poll("the line at the sink", seconds: 120, every: .milliseconds(100)) { h.backend.records.contains { $0.body == "a line" } }
            // A reload fetches the same policy again: nothing changed.
            let reload = try await h.ctl(["reload"])
            #expect(reload.status == 0, "\(reload.stderr)")
            // The line is written once the answer is read, after the backend counted the request.
            try await poll("the policy fetched again, and its line written", seconds: 60, every: .milliseconds(100)) {
                h.log.contains("policy is unchanged") || h.log.contains("policy is not modified")
            }
            #expect(await h.stop() == 0)

            let lines = h.allLogs.split(separator: "\n").compactMap(Self.parsed)
            let app = "\(AgentHarness.app): "
            let appLines = lines.filter { $0.text.hasPrefix(app) }
            #expect(!appLines.isEmpty, "no line of the app's")
            for line in appLines {
                #expect(!line.text.dropFirst(app.count).contains(app), "the app named twice: \(line.text)")
                #expect(!line.text.contains("ingest \(AgentHarness.app)"), "the part and the app named again: \(line.text)")
            }
            // The 503 is worth a warning, once for the run of failures, and not an error.
            let failures = appLines.filter { $0.text.contains("503") }
            #expect(failures.count == 1, "\(failures.map(\.text))")
            #expect(failures.allSatisfy { $0.level == "warning" }, "\(failures.map { "\($0.level): \($0.text)" })")
            // A policy fetched again unchanged is routine: never above debug.
            let routine = appLines.filter {
                $0.text.contains("policy") && ($0.text.contains("unchanged") || $0.text.contains("not modified"))
            }
            #expect(!routine.isEmpty, "no line for the policy fetched again")
            #expect(routine.allSatisfy { $0.level == "debug" }, "\(routine.map { "\($0.level): \($0.text)" })")
            #expect(!lines.contains { $0.level == "err" }, "an error where nothing failed for good: \(lines.filter { $0.level == "err" }.map(\.text))")
        }
    }
}
