import Foundation
import Glibc

/// Runs a configured process to its end, or stops it by pid (SIGKILL) once `deadline` passes or
/// the test is cancelled: a stuck child never outlives its test. Returns the exit status, nil when
/// the deadline came first.
func runToEnd(_ process: Process, deadline: Duration) async throws -> Int32? {
    let ended = AsyncStream<Int32>.makeStream()
    process.terminationHandler = { ended.continuation.yield($0.terminationStatus) }
    try process.run()
    let pid = process.processIdentifier
    return try await withThrowingTaskGroup(of: Int32?.self) { group in
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
}
