package import ApsioPOSIX
package import ApsioCore

extension ManualAgentClock {
    /// `asleep(condition)`, given up after `seconds` of real time with an error naming `what`:
    /// a bound for a test that would otherwise hang, not a measure of how long anything takes.
    package func waitAsleep(
        _ what: String, seconds: Double = 60,
        _ condition: @escaping @Sendable (_ deadlines: [MonotonicInstant]) -> Bool
    ) async throws {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await self.asleep(condition)
                return true
            }
            group.addTask {
                try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
                return false
            }
            let settled = try await group.next() ?? false
            group.cancelAll()
            if !settled { throw WaitTimedOut(what: what) }
        }
    }
}
