internal import ApsioPOSIX

/// How a `RecordQueue` is kept from a second holder, as its opener asks.
package enum QueueExclusionRequest: Sendable {
    /// The queue locks its own `lock` file: a queue opened by itself, as tools and tests do.
    case ownLock
    /// The opener holds the state directory's lock, which covers every queue under it.
    case stateDirectory(StateDirectoryLock)
}

/// What an open queue holds for its exclusion.
enum QueueExclusion {
    case ownLock(FileLock)
    /// Kept so the state directory's lock outlives every queue opened under it.
    case stateDirectory(StateDirectoryLock)
}
