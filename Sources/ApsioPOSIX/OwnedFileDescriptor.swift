#if canImport(Glibc)
internal import Glibc
#endif
import Synchronization

/// A file descriptor with exactly one owner, closed exactly once.
///
/// Other tasks may `shutdown` a socket to wake a reader blocked on it (that is how a request in
/// flight is cancelled at once), but the number is never closed while one of them uses it: a
/// `shutdown` registers itself before it touches the number, and a `close` that finds one in
/// progress leaves the close to the last of them. So no other thread's `open` can be handed the
/// same number while a `shutdown` (or `take`) of this one still means it.
package final class OwnedFileDescriptor: Sendable {
    package let rawValue: Int32
    /// Bit 0: closed (or taken). The bits above: how many `shutdown`s use the number right now.
    private let state = Atomic<Int>(0)
    private static let closedBit = 1
    private static let user = 2

    /// Takes ownership of `rawValue`, which the caller opened close-on-exec.
    package init(taking rawValue: Int32) {
        self.rawValue = rawValue
    }

    package var isClosed: Bool { state.load(ordering: .acquiring) & Self.closedBit != 0 }

    /// Closes the descriptor, at once or, when a `shutdown` is using it from another thread, as
    /// soon as that ends. A second call does nothing; only the call that closed it returns true,
    /// so what goes with the close (removing a socket's file) is done once however many race.
    @discardableResult
    package func close() -> Bool {
        let before = state.bitwiseOr(Self.closedBit, ordering: .acquiringAndReleasing).oldValue
        guard before & Self.closedBit == 0 else { return false }
        if before == 0 { _ = Glibc.close(rawValue) }
        return true
    }

    /// Hands the number to whatever closes it from now on (a C library, `fdopendir`): after this
    /// the descriptor counts as closed here and is never closed by it. Nil when it was closed.
    package func take() -> Int32? {
        while true {
            let (taken, current) = state.compareExchange(
                expected: 0, desired: Self.closedBit, ordering: .acquiringAndReleasing)
            if taken { return rawValue }
            if current & Self.closedBit != 0 { return nil }
            // A shutdown from another thread is in its one system call; the number is ours again
            // as soon as it returns.
            sched_yield()
        }
    }

    /// Wakes anyone blocked reading or writing this socket; safe from any thread, and does nothing
    /// once the owner closed it.
    package func shutdown() {
        var current = state.load(ordering: .acquiring)
        while true {
            guard current & Self.closedBit == 0 else { return }
            let (joined, seen) = state.compareExchange(
                expected: current, desired: current + Self.user, ordering: .acquiringAndReleasing)
            if joined { break }
            current = seen
        }
        _ = Glibc.shutdown(rawValue, Int32(SHUT_RDWR))
        // The owner closed meanwhile and left the close to the last user out.
        if state.subtract(Self.user, ordering: .acquiringAndReleasing).newValue == Self.closedBit {
            _ = Glibc.close(rawValue)
        }
    }

    /// Whether it is a terminal (isatty(3)).
    package var isTerminal: Bool { isatty(rawValue) == 1 }

    /// For a descriptor inherited without it (systemd passes its sockets so): no child may get it.
    package func setCloseOnExec() throws(SystemError) {
        let flags = try retryingInterrupts("fcntl(F_GETFD)") { fcntl(rawValue, F_GETFD) }
        try retryingInterrupts("fcntl(F_SETFD)") { fcntl(rawValue, F_SETFD, flags | FD_CLOEXEC) }
    }

    package func setNonBlocking() throws(SystemError) {
        let flags = try retryingInterrupts("fcntl(F_GETFL)") { fcntl(rawValue, F_GETFL) }
        try retryingInterrupts("fcntl(F_SETFL)") { fcntl(rawValue, F_SETFL, flags | O_NONBLOCK) }
    }

    deinit { close() }
}
