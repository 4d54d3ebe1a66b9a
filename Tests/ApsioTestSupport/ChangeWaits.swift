package import ApsioPOSIX

package struct WaitTimedOut: Error, CustomStringConvertible {
    package let what: String
    package init(what: String) { self.what = what }
    package var description: String { "timed out waiting for \(what)" }
}

/// A bound for a test that would otherwise hang, in real time: not a measure of how long
/// anything takes.
package func waitDeadline(seconds: Double) -> ContinuousClock.Instant {
    ContinuousClock.now.advanced(by: .milliseconds(Int(seconds * 1000)))
}

/// Returns once one of `waits` returns (something changed); throws, naming `what`, at `deadline`.
package func anyChange(
    _ what: String, _ waits: [@Sendable () async throws -> Void], before deadline: ContinuousClock.Instant
) async throws {
    let changed = try await withThrowingTaskGroup(of: Bool.self) { group in
        for wait in waits {
            group.addTask {
                try await wait()
                return true
            }
        }
        group.addTask {
            try await Task.sleep(until: deadline, clock: .continuous)
            return false
        }
        let changed = try await group.next() ?? false
        group.cancelAll()
        return changed
    }
    if !changed { throw WaitTimedOut(what: what) }
}

/// Returns once `condition` holds, checking it now and after each change of `sources`; throws,
/// naming `what`, if it still does not after `seconds`.
package func until(
    _ what: String, seconds: Double = 60, on sources: [any ChangeSource],
    _ condition: @Sendable () async throws -> Bool
) async throws {
    let deadline = waitDeadline(seconds: seconds)
    while true {
        // Marked before the check, so a change while checking is not missed.
        let waits = sources.map { $0.markChange() }
        if try await condition() { return }
        try await anyChange(what, waits, before: deadline)
    }
}

/// Checks `condition` `every` few milliseconds until it holds, for at most `seconds`: only for
/// what another process or the kernel does in its own time (a server's state, a socket closed),
/// which no change source can signal. A condition that runs a process itself (`apsioctl status`)
/// is checked every 100 ms rather than every 5.
package func poll(
    _ what: String, seconds: Double = 120, every interval: Duration = .milliseconds(5),
    _ condition: @Sendable () async throws -> Bool
) async throws {
    let deadline = waitDeadline(seconds: seconds)
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: interval)
    }
    if try await condition() { return }
    throw WaitTimedOut(what: what)
}
