import Glibc

/// Why something on the system bus failed, worded for the operator who reads the log line.
package enum BusError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bus could not be reached at `address` (no dbus-daemon, no permission, …).
    case connectFailed(address: String, errno: Int32)
    /// The connection broke: dbus-daemon stopped or restarted, or closed us.
    case disconnected(errno: Int32)
    /// The connection was closed on purpose; nothing more can be sent on it.
    case closed
    /// The peer answered with a D-Bus error (`org.freedesktop.DBus.Error.ServiceUnknown`, …).
    case methodError(name: String, message: String)
    /// A message broke a limit or did not have the shape D-Bus promised.
    case malformed(String)
    /// A libsystemd call failed where no peer was involved.
    case libsystemd(call: String, errno: Int32)

    package var description: String {
        switch self {
        case .connectFailed(let address, let code):
            "cannot connect to the system bus at \(address): \(Self.reason(code))"
        case .disconnected(let code):
            "the system bus connection was lost: \(Self.reason(code))"
        case .closed:
            "the system bus connection is closed"
        case .methodError(let name, let message):
            message.isEmpty ? name : "\(name): \(message)"
        case .malformed(let what):
            "malformed D-Bus message: \(what)"
        case .libsystemd(let call, let code):
            "\(call) failed: \(Self.reason(code))"
        }
    }

    /// The error names that mean "no such thing here", as opposed to "the bus is gone".
    package var isMethodError: Bool {
        if case .methodError = self { return true }
        return false
    }

    package var methodErrorName: String? {
        if case .methodError(let name, _) = self { return name }
        return nil
    }

    private static func reason(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
