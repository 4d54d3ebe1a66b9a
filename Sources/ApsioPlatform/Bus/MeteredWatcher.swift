import ApsioCore
import Synchronization

/// Low Data Mode from NetworkManager's `Metered` (LINUX-PROFILE §0): on only while NetworkManager
/// is on the bus and says `yes` (see `NetworkMetered.isLowData`).
///
/// While the bus connection is down the last value is kept: the mode is a property of the network,
/// which a restart of dbus-daemon does not change, and the reconnection reads it again. Without
/// NetworkManager (or without any bus) the mode is off.
package final class MeteredWatcher: BusWatcher {
    static let follower = PropertyFollower(
        service: "org.freedesktop.NetworkManager", path: "/org/freedesktop/NetworkManager",
        interface: "org.freedesktop.NetworkManager")

    private let state = Mutex<Bool>(false)
    private let continuation: AsyncStream<Bool>.Continuation
    /// Each change of the mode; only the newest is kept for a slow reader.
    package let updates: AsyncStream<Bool>

    package init() {
        (updates, continuation) = AsyncStream.makeStream(of: Bool.self, bufferingPolicy: .bufferingNewest(1))
    }

    deinit { continuation.finish() }

    package var isLowData: Bool { state.withLock { $0 } }

    package func serve(_ bus: SystemBus) async {
        await Self.follower.serve(bus) { properties in
            self.publish(NetworkMetered.isLowData(properties?["Metered"]?.uint32))
        }
    }

    package func connectionLost() {}

    private func publish(_ lowData: Bool) {
        let changed = state.withLock { current -> Bool in
            defer { current = lowData }
            return current != lowData
        }
        if changed { continuation.yield(lowData) }
    }
}
