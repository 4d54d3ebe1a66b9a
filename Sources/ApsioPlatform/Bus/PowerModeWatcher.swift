import ApsioCore
import Synchronization

/// Low Power Mode (LINUX-PROFILE §0): power-profiles-daemon's `ActiveProfile` is `power-saver`,
/// else the firmware's `platform_profile` is `low-power`.
///
/// power-profiles-daemon has answered to two names: `net.hadess.PowerProfiles` and, since 0.20,
/// `org.freedesktop.UPower.PowerProfiles` (it owns both there). Both are followed; the newer one
/// is believed when both are present. Neither present means the daemon is absent, and only then is
/// the firmware's file read (`PlatformProfileFollower`).
///
/// While the bus connection is down the last value is kept, as for Low Data Mode; the reconnection
/// reads the daemon again.
package final class PowerModeWatcher: BusWatcher {
    static let followers = [
        PropertyFollower(
            service: "org.freedesktop.UPower.PowerProfiles", path: "/org/freedesktop/UPower/PowerProfiles",
            interface: "org.freedesktop.UPower.PowerProfiles"),
        PropertyFollower(
            service: "net.hadess.PowerProfiles", path: "/net/hadess/PowerProfiles",
            interface: "net.hadess.PowerProfiles"),
    ]

    private struct Sources {
        /// The daemon's `ActiveProfile` under each name (in `followers`' order); `nil` when absent.
        var profiles: [String?] = [nil, nil]
        var platformProfile: String?
        var lowPower = false

        var activeProfile: String? { profiles.lazy.compactMap { $0 }.first }
    }

    private let platformProfile: PlatformProfileFollower
    private let state = Mutex(Sources())
    private let continuation: AsyncStream<Bool>.Continuation
    /// Each change of the mode; only the newest is kept for a slow reader.
    package let updates: AsyncStream<Bool>

    /// `sysfs` is the root the firmware file is read under (`/sys`, or a test's fixture tree).
    package init(sysfs: String = "/sys") {
        platformProfile = PlatformProfileFollower(sysfs: sysfs)
        (updates, continuation) = AsyncStream.makeStream(of: Bool.self, bufferingPolicy: .bufferingNewest(1))
    }

    deinit { continuation.finish() }

    package var isLowPower: Bool { state.withLock { $0.lowPower } }

    package func serve(_ bus: SystemBus) async {
        await withTaskGroup(of: Void.self) { group in
            for (index, follower) in Self.followers.enumerated() {
                group.addTask {
                    await follower.serve(bus) { properties in
                        // A daemon without the property is present all the same: it has no profile to say.
                        let profile = properties.map { $0["ActiveProfile"]?.string ?? "" }
                        self.update { $0.profiles[index] = profile }
                    }
                }
            }
        }
    }

    package func connectionLost() {}

    package func followLocalSources() async {
        await platformProfile.follow { profile in
            self.update { $0.platformProfile = profile }
        }
    }

    private func update(_ change: (inout Sources) -> Void) {
        let changed: Bool? = state.withLock { sources in
            change(&sources)
            let lowPower = LowPowerMode.isOn(activeProfile: sources.activeProfile, platformProfile: sources.platformProfile)
            defer { sources.lowPower = lowPower }
            return sources.lowPower != lowPower ? lowPower : nil
        }
        if let changed { continuation.yield(changed) }
    }
}
