/// How long to wait before connecting again after failures in a row: doubling from `initial` to
/// `maximum`, each delay drawn between half and all of it so that instances which lost Redis at
/// the same moment do not come back at the same moment.
package struct RedisBackoff: Sendable, Equatable {
    package var initial: Duration
    package var maximum: Duration

    package init(initial: Duration = .milliseconds(100), maximum: Duration = .seconds(5)) {
        self.initial = initial
        self.maximum = maximum
    }

    /// The delay after `failures` failures in a row (1 or more), for `unit` in 0..<1.
    package func delay(afterFailures failures: Int, unit: Double) -> Duration {
        let doublings = min(max(failures - 1, 0), 30)
        let full = min(initial * (1 << doublings), maximum)
        return full * (0.5 + 0.5 * min(max(unit, 0), 1))
    }
}
