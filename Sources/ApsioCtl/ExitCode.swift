/// apsioctl's exit codes (LINUX-PROFILE §R).
package enum ExitCode: Int32, Sendable {
    case done = 0
    /// Refused or failed, with one line on stderr saying why.
    case failed = 1
    case badCommandLine = 2
    /// The daemon is not running and the command needs it.
    case notRunning = 3
}
