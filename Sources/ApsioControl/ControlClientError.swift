/// Why a control client got no answer.
package enum ControlClientError: Error, Equatable, CustomStringConvertible {
    /// Nothing listens on the socket: the daemon is not running (apsioctl's exit code 3).
    case notRunning(path: String)
    /// The socket is there but may not be opened by this user.
    case denied(path: String)
    /// The connection failed or the daemon closed it before answering.
    case connection(String)
    /// The daemon took longer than the client waits.
    case timedOut
    /// The daemon's line is not an answer this client can read.
    case badAnswer(String)

    package var description: String {
        switch self {
        case .notRunning(let path): "apsiod is not running (nothing answers on \(path))"
        case .denied(let path): "may not open \(path); check its mode and the runtime directory's"
        case .connection(let reason): "the connection to apsiod failed: \(reason)"
        case .timedOut: "apsiod did not answer in time; see 'systemctl status apsiod'"
        case .badAnswer(let reason): "apsiod's answer could not be read (\(reason)); are apsioctl and apsiod the same version?"
        }
    }

    /// What went wrong with the socket, without the guess `description` makes at why (that the
    /// daemon is not running): for when the daemon is known to run.
    package var reason: String {
        switch self {
        case .notRunning(let path): "nothing answers on \(path)"
        case .denied(let path): "may not open \(path)"
        case .connection(let reason): reason
        case .timedOut: "it did not answer in time"
        case .badAnswer(let reason): "its answer could not be read (\(reason))"
        }
    }
}
