#if canImport(Glibc)
internal import Glibc
#endif
package import ApsioCore

extension ClockTime {
    /// The local time of day of a Unix time in ms, in the machine's time zone (`TZ`, else
    /// /etc/localtime), as the indicator shows "since 14:02".
    package static func local(unixMs: Int64) -> ClockTime {
        var seconds = time_t(unixMs / 1000)
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else {
            // No zone information: UTC is the honest fallback.
            let secondsOfDay = Int((unixMs / 1000) % 86_400 + 86_400) % 86_400
            return ClockTime(hour: secondsOfDay / 3600, minute: secondsOfDay / 60 % 60)
        }
        return ClockTime(hour: Int(parts.tm_hour), minute: Int(parts.tm_min))
    }
}
