package import Foundation
import Glibc

/// Runs a configured process to its end, or stops it by pid (SIGKILL) once `deadline` passes or
/// the test is cancelled: a stuck child never outlives its test. Returns the exit status, nil when
/// the deadline came first. A process that ended is released (`releaseEnded(_:)`).
package func runToEnd(_ process: Process, deadline: Duration) async throws -> Int32? {
    let ended = AsyncStream<Int32>.makeStream()
    process.terminationHandler = { ended.continuation.yield($0.terminationStatus) }
    try process.run()
    let pid = process.processIdentifier
    let status = try await withThrowingTaskGroup(of: Int32?.self) { group in
        group.addTask {
            for await status in ended.stream { return status }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: deadline)
            return nil
        }
        defer {
            group.cancelAll()
            if process.isRunning { kill(pid, SIGKILL) }
        }
        return try await group.next() ?? nil
    }
    releaseEnded(process)
    return status
}

/// Lets Foundation let go of a process that has ended, and with it the pipes and file handles it
/// was given. `Process.run()` ties the process to a run-loop source that holds it, and only
/// `waitUntilExit()` breaks that cycle: without it each child's descriptors stay open for the rest
/// of the test run. Thousands of them once took the test process past 1,350 descriptors, where
/// `run()`'s own scan of /proc/self/fd copies each name as 256 bytes and read past the end of its
/// buffer into unmapped memory (SIGSEGV in the middle of the suite). Returns at once: called only
/// once the exit was seen, so `waitUntilExit` has no run loop to spin; a process still running
/// (killed, not yet reaped) is left alone rather than waited for.
package func releaseEnded(_ process: Process) {
    if !process.isRunning { process.waitUntilExit() }
}

/// SIGKILL unless it already ended (its pid reaped, perhaps another process's by now), waited for
/// with a bound (`waitUntilExit` spins a run loop until Foundation's own thread sees the exit, and
/// once hung a whole test run: polled instead), then released.
package func killAndRelease(_ process: Process) {
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    for _ in 0..<2000 where process.isRunning { usleep(5000) }
    releaseEnded(process)
}
