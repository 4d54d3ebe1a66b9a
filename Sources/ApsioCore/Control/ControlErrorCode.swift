/// The stable code of a refused or failed control request: scripts branch on it, people read the
/// message beside it. New codes may appear; a client treats one it does not know as a failure.
public struct ControlErrorCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The line is not a request of this protocol (not JSON, a field missing, of the wrong type or unknown).
    public static let badRequest = ControlErrorCode(rawValue: "bad_request")
    /// `command` names no command this daemon knows.
    public static let unknownCommand = ControlErrorCode(rawValue: "unknown_command")
    /// The peer may read but not change: only root and members of the group `apsio` may.
    public static let notPermitted = ControlErrorCode(rawValue: "not_permitted")
    /// A named app is not configured.
    public static let unknownApp = ControlErrorCode(rawValue: "unknown_app")
    /// The request line is longer than the protocol allows.
    public static let tooLarge = ControlErrorCode(rawValue: "too_large")
    /// The daemon serves as many connections as it allows; try again.
    public static let busy = ControlErrorCode(rawValue: "busy")
    /// The request was understood and allowed but could not be carried out (a damaged settings
    /// file, a lock held too long); the message says what to fix.
    public static let failed = ControlErrorCode(rawValue: "failed")
    /// Something the daemon did not expect; its log says more.
    public static let `internal` = ControlErrorCode(rawValue: "internal")
    /// Never sent: what a client reports when the daemon's line is not an answer it can read
    /// (a daemon and an apsioctl of very different versions).
    public static let badAnswer = ControlErrorCode(rawValue: "bad_answer")

    public var description: String { rawValue }
}
