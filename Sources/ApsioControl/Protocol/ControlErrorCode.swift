/// The stable code of a refused or failed control request: scripts branch on it, people read the
/// message beside it. New codes may appear; a client treats one it does not know as a failure.
package struct ControlErrorCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    package let rawValue: String

    package init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The line is not a request of this protocol (not JSON, a field missing, of the wrong type or unknown).
    package static let badRequest = ControlErrorCode(rawValue: "bad_request")
    /// `command` names no command this daemon knows.
    package static let unknownCommand = ControlErrorCode(rawValue: "unknown_command")
    /// The peer may read but not change: only root and members of the group `apsio` may.
    package static let notPermitted = ControlErrorCode(rawValue: "not_permitted")
    /// A named app is not configured.
    package static let unknownApp = ControlErrorCode(rawValue: "unknown_app")
    /// The request line is longer than the protocol allows.
    package static let tooLarge = ControlErrorCode(rawValue: "too_large")
    /// The daemon serves as many connections as it allows; try again.
    package static let busy = ControlErrorCode(rawValue: "busy")
    /// The request was understood and allowed but could not be carried out (a damaged settings
    /// file, a lock held too long); the message says what to fix.
    package static let failed = ControlErrorCode(rawValue: "failed")
    /// Something the daemon did not expect; its log says more.
    package static let `internal` = ControlErrorCode(rawValue: "internal")
    /// Never sent: what a client reports when the daemon's line is not an answer it can read
    /// (a daemon and an apsioctl of very different versions).
    package static let badAnswer = ControlErrorCode(rawValue: "bad_answer")

    package var description: String { rawValue }
}
