#if canImport(Glibc)
internal import Glibc
#endif
internal import ApsioPOSIX

/// `CLOCK_REALTIME` and the machine's zone (`TZ`, else /etc/localtime), as localtime(3) reads it.
package struct SystemCtlClock: CtlClock {
    package init() {}

    package func nowUnixMs() -> Int64 { SystemAgentClock.wallUnixMs() }

    package func utcOffsetSeconds(atUnixMs unixMs: Int64) -> Int {
        var seconds = time_t(unixMs / 1000)
        var parts = tm()
        // No zone information: UTC is the honest fallback.
        guard localtime_r(&seconds, &parts) != nil else { return 0 }
        return Int(parts.tm_gmtoff)
    }

    package func sleep(for duration: Duration) async {
        try? await Task.sleep(for: duration)
    }
}
