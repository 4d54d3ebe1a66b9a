/// CPU percent of each process since the previous frame (LINUX-PROFILE §10), from the `utime` +
/// `stime` clock ticks of `/proc/PID/stat`. Time is given, never read: `monotonic` is any monotonic
/// clock's reading as a duration since its origin.
package struct ProcessCPUSampler: Sendable {
    /// A process across frames: a pid alone could be reused by a new process between two frames.
    package struct Key: Hashable, Sendable {
        package var pid: Int32
        /// `starttime`, field 22 of `/proc/PID/stat`.
        package var startTicks: UInt64
        package init(pid: Int32, startTicks: UInt64) {
            self.pid = pid
            self.startTicks = startTicks
        }
    }

    package let ticksPerSecond: Int
    private var previous: [Key: UInt64] = [:]
    private var previousTime: Duration?

    package init(ticksPerSecond: Int) {
        self.ticksPerSecond = max(1, ticksPerSecond)
    }

    /// The percent of one CPU each process used since the previous call, rounded to a tenth (so a
    /// frame that did not really change compares equal); above 100 for a process busy on several
    /// CPUs, as `top` shows it. A process seen for the first time, and every process on the first
    /// call, has none.
    package mutating func sample(_ cpuTicks: [Key: UInt64], at monotonic: Duration) -> [Key: Double] {
        defer {
            previous = cpuTicks
            previousTime = monotonic
        }
        guard let previousTime, monotonic > previousTime else { return [:] }
        let elapsed = monotonic - previousTime
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        var out: [Key: Double] = [:]
        for (key, ticks) in cpuTicks {
            guard let before = previous[key], ticks >= before else { continue }
            let used = Double(ticks - before) / Double(ticksPerSecond)
            out[key] = (used / seconds * 1000).rounded() / 10
        }
        return out
    }
}
