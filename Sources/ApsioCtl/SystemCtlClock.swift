#if canImport(Glibc)
internal import Glibc
#endif
internal import ApsioPOSIX

/// `CLOCK_REALTIME` and the machine's zone (`TZ`, else /etc/localtime), as localtime(3) reads it.
public struct SystemCtlClock: CtlClock {
    public init() {}

    public func nowUnixMs() -> Int64 { SystemAgentClock.wallUnixMs() }

    public func utcOffsetSeconds(atUnixMs unixMs: Int64) -> Int {
        var seconds = time_t(unixMs / 1000)
        var parts = tm()
        // No zone information: UTC is the honest fallback.
        guard localtime_r(&seconds, &parts) != nil else { return 0 }
        return Int(parts.tm_gmtoff)
    }
}
