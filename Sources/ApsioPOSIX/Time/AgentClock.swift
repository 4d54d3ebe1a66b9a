package import ApsioCore
#if canImport(Glibc)
internal import Glibc
#endif

/// The two clocks the agent and the development backend read, behind one protocol so a test runs a 30-minute session in
/// microseconds: the monotonic one for durations, the wall one for timestamps and the UTC day.
package protocol AgentClock: Sendable {
    func now() -> LiveNow
    /// Returns at `deadline` on the monotonic clock, or throws `CancellationError`.
    func sleep(until deadline: MonotonicInstant) async throws
}

/// The machine's clocks: `CLOCK_BOOTTIME` (through `ContinuousClock`, which does not stop while
/// the machine sleeps) and `CLOCK_REALTIME`.
package struct SystemAgentClock: AgentClock {
    private let origin = ContinuousClock.now

    package init() {}

    package func now() -> LiveNow {
        LiveNow(mono: MonotonicInstant(ContinuousClock.now - origin), wallUnixMs: Self.wallUnixMs())
    }

    package func sleep(until deadline: MonotonicInstant) async throws {
        try await Readiness.sleep(for: (origin + deadline.sinceOrigin) - ContinuousClock.now)
    }

    package static func wallUnixMs() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}

extension AgentClock {
    /// Returns after `duration` on this clock, or throws once the task is cancelled.
    package func sleep(for duration: Duration) async throws {
        try await sleep(until: now().mono + duration)
    }
}
