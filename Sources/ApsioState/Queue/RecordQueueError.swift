package import ApsioPOSIX

/// Why a record queue could not do what was asked.
package enum RecordQueueError: Error, Equatable, CustomStringConvertible {
    case system(SystemError)
    /// Another process holds the queue's lock: two daemons on one state directory.
    case busy(directory: String)
    case entryTooLarge(bytes: Int, limit: Int)
    /// A position past the end of the queue: not one `peek` gave.
    case unknownPosition(QueuePosition)

    package var description: String {
        switch self {
        case .system(let error): "record queue: \(error)"
        case .busy(let directory):
            "record queue \(directory) is in use by another process; is a second apsiod running on the same state directory?"
        case .entryTooLarge(let bytes, let limit): "record of \(bytes) bytes is larger than the queue's \(limit)-byte limit"
        case .unknownPosition(let position): "acknowledged \(position), which is past the end of the queue"
        }
    }
}
