package import ApsioPOSIX

/// Why the control socket could not be set up, in words an operator can act on.
package enum ControlListenerError: Error, Equatable, CustomStringConvertible {
    case pathTooLong(String)
    /// Another process answers on the socket: a second apsiod on the same runtime directory.
    case inUse(String)
    case system(SystemError)
    /// The descriptor systemd passed is not a listening unix stream socket.
    case notAListeningSocket(fd: Int32)

    package var description: String {
        switch self {
        case .pathTooLong(let path): "\(path) is longer than a unix socket path may be (107 bytes); choose a shorter --runtime-dir"
        case .inUse(let path): "another process answers on \(path); is a second apsiod running with the same --runtime-dir?"
        case .system(let error): "control socket: \(error)"
        case .notAListeningSocket(let fd): "descriptor \(fd) passed by systemd is not a listening unix stream socket; check apsiod.socket"
        }
    }
}
