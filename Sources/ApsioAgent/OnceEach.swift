import Synchronization

/// Says yes the first time it is asked about a key and no ever after: what has been reported once
/// (a broken journal file) is not reported again when the reader that found it is made anew.
final class OnceEach: Sendable {
    private let seen = Mutex<Set<String>>([])

    func first(_ key: String) -> Bool {
        seen.withLock { $0.insert(key).inserted }
    }
}
