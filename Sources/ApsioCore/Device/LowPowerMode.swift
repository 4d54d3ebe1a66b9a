/// Low Power Mode on Linux (LINUX-PROFILE §0): power-profiles-daemon's `ActiveProfile` is
/// `power-saver`, else the firmware's `/sys/firmware/acpi/platform_profile` is `low-power`.
package enum LowPowerMode {
    /// `activeProfile` is `nil` when no power-profiles-daemon is on the bus; only then is the
    /// firmware's profile read, because the daemon drives that file itself and its own profile is the
    /// one the user chose. `platformProfile` is `nil` when the file is absent; it is compared
    /// without its trailing newline.
    package static func isOn(activeProfile: String?, platformProfile: String?) -> Bool {
        if let activeProfile { return activeProfile == "power-saver" }
        guard let platformProfile else { return false }
        return platformProfile.trimmingTrailingNewlines() == "low-power"
    }
}

extension String {
    fileprivate func trimmingTrailingNewlines() -> Substring {
        var end = endIndex
        while end > startIndex, let last = self[..<end].last, last == "\n" || last == "\r" || last == " " {
            end = index(before: end)
        }
        return self[..<end]
    }
}
