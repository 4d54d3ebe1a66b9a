import ApsioPOSIX
package import ApsioCore

extension ManualAgentClock {
    /// Returns once the deadlines of the tasks asleep on this clock meet `condition`, given up
    /// after `seconds` of real time with an error naming `what`: a bound for a test that would
    /// otherwise hang, not a measure of how long anything takes.
    package func waitAsleep(
        _ what: String, seconds: Double = 60,
        _ condition: @escaping @Sendable (_ deadlines: [MonotonicInstant]) -> Bool
    ) async throws {
        try await until(what, seconds: seconds, on: [self]) { condition(self.deadlines) }
    }
}
