#if canImport(Glibc)
internal import Glibc
#endif

/// A failed sd-journal call, with what it was doing, so the message says what to check.
package struct JournalError: Error, Equatable, CustomStringConvertible {
    /// The sd-journal function that failed, or the follower's own operation.
    package let operation: String
    /// The errno sd-journal returned (as a positive number), or 0 for the follower's own refusals.
    package let errno: Int32
    /// What it was applied to: the journal directory, the cursor, the match.
    package let detail: String

    package init(_ operation: String, errno: Int32, detail: String = "") {
        self.operation = operation
        self.errno = errno
        self.detail = detail
    }

    /// sd-journal returns `-errno`; this keeps the positive number.
    static func failed(_ operation: String, returned code: Int32, detail: String = "") -> JournalError {
        JournalError(operation, errno: code < 0 ? -code : code, detail: detail)
    }

    /// `next()` was called while another call was still waiting: a follower has one reader.
    package static let concurrentRead = JournalError(
        "JournalFollower.next", errno: 0, detail: "called again while a previous call is still waiting; a follower has one reader")

    package var description: String {
        var text = operation
        if !detail.isEmpty { text += " (\(detail))" }
        if errno != 0 {
            text += ": \(String(cString: strerror(errno)))"
            if errno == EACCES || errno == EPERM {
                text += "; the daemon's user needs to be in the systemd-journal group to read the journal"
            }
        }
        return text
    }
}
