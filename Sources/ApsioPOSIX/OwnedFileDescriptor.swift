#if canImport(Glibc)
internal import Glibc
#endif
import Synchronization

/// A file descriptor with exactly one owner, closed exactly once.
///
/// Other tasks may `shutdown` a socket to wake a reader blocked on it (that is how a request in
/// flight is cancelled at once), but only the owner closes: closing from another thread would let
/// the number be reused under a reader's feet.
public final class OwnedFileDescriptor: Sendable {
    public let rawValue: Int32
    private let closed = Atomic<Bool>(false)

    /// Takes ownership of `rawValue`, which the caller opened close-on-exec.
    public init(taking rawValue: Int32) {
        self.rawValue = rawValue
    }

    public var isClosed: Bool { closed.load(ordering: .acquiring) }

    public func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = Glibc.close(rawValue)
    }

    /// Wakes anyone blocked reading or writing this socket; safe from any thread.
    public func shutdown() {
        guard !isClosed else { return }
        _ = Glibc.shutdown(rawValue, Int32(SHUT_RDWR))
    }

    /// Whether it is a terminal (isatty(3)).
    public var isTerminal: Bool { isatty(rawValue) == 1 }

    public func setNonBlocking() throws(SystemError) {
        let flags = try retryingInterrupts("fcntl(F_GETFL)") { fcntl(rawValue, F_GETFL) }
        try retryingInterrupts("fcntl(F_SETFL)") { fcntl(rawValue, F_SETFL, flags | O_NONBLOCK) }
    }

    deinit { close() }
}
