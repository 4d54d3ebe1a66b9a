public import ApsioCore
#if canImport(Glibc)
internal import Glibc
#endif

/// The two clocks the backend reads: the monotonic one for presence, holds, silence and session
/// ends; the wall one for `until`, tester expiry and timestamps (LINUX-PROFILE §16 "Clocks").
public protocol BackendClock: Sendable {
    func now() -> LiveNow
    /// Returns at `deadline` on the monotonic clock, or throws `CancellationError`.
    func sleep(until deadline: MonotonicInstant) async throws
}

/// `CLOCK_MONOTONIC` through `ContinuousClock`, and `CLOCK_REALTIME`.
public struct SystemBackendClock: BackendClock {
    private let origin = ContinuousClock.now

    public init() {}

    public func now() -> LiveNow {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return LiveNow(
            mono: MonotonicInstant(ContinuousClock.now - origin),
            wallUnixMs: Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000)
    }

    public func sleep(until deadline: MonotonicInstant) async throws {
        try await Task.sleep(until: origin + deadline.sinceOrigin, clock: .continuous)
    }
}
