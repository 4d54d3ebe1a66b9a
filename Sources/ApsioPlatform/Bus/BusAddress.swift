import Glibc

/// Which bus to connect to.
package enum BusAddress: Sendable, Equatable, CustomStringConvertible {
    /// The machine's system bus: `DBUS_SYSTEM_BUS_ADDRESS` when set, as libsystemd and libdbus read
    /// it, else the standard socket.
    case system
    /// A D-Bus address such as `unix:path=/run/dbus/system_bus_socket` (tests use a private bus).
    case address(String)

    package static let standardSystemSocket = "unix:path=/run/dbus/system_bus_socket"

    /// The address string to hand to sd-bus, read at each connection so a changed environment counts.
    package var resolved: String {
        switch self {
        case .address(let text): return text
        case .system:
            if let text = getenv("DBUS_SYSTEM_BUS_ADDRESS"), text.pointee != 0 { return String(cString: text) }
            return Self.standardSystemSocket
        }
    }

    package var description: String { resolved }
}
