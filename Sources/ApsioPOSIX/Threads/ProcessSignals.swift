import Synchronization

internal import CLinux
#if canImport(Glibc)
internal import Glibc
#endif

/// Signals a daemon handles as events (SIGTERM, SIGINT, SIGHUP): each delivery arrives in an async
/// stream, so the handling runs as ordinary code rather than in a signal handler. Keep the value
/// alive for as long as the signals should be handled.
///
/// The handler only writes the signal's number to a pipe (write(2) is async-signal-safe, and the
/// number is all it touches), and a thread of its own (`apsio-signals`) sleeps in read(2) on the
/// other end and passes each number on. So nothing wakes while no signal comes: libdispatch's
/// signal sources, used before, started its pool and the timer that watches it, once a second
/// for the life of the process. The pipe takes any thread's delivery, whatever its signal mask.
package final class ProcessSignals {
    package let events: AsyncStream<Int32>
    private let numbers: [Int32]

    /// The pipe's write end, for the handler; -1 before the first `ProcessSignals`. A process
    /// handles its signals in one place: a second value takes them over.
    private static let writeEnd = Atomic<Int32>(-1)

    package init(_ numbers: [Int32]) {
        self.numbers = numbers
        let (events, continuation) = AsyncStream<Int32>.makeStream()
        self.events = events
        var ends: [Int32] = [-1, -1]
        // Without its pipe the daemon could not be stopped or reloaded by a signal: nothing runs
        // yet that could be left half done, so it stops here, as without a thread.
        precondition(pipe2(&ends, O_CLOEXEC) == 0, "cannot make the signal pipe: \(String(cString: strerror(errno)))")
        let reading = OwnedFileDescriptor(taking: ends[0])
        let writing = OwnedFileDescriptor(taking: ends[1])
        // A full pipe drops the signal rather than block the handler: signals of one kind
        // pending at once are one delivery anyway.
        try? writing.setNonBlocking()
        // Loaded once here, so that the handler's first load is no lazy initialisation.
        Self.writeEnd.store(writing.take() ?? -1, ordering: .releasing)
        for number in numbers {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                let saved = errno
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(ProcessSignals.writeEnd.load(ordering: .acquiring), &byte, 1)
                errno = saved
            }
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, nil)
        }
        // A parent may have started the process with them blocked (the mask is inherited): a
        // signal blocked in every thread would wait for good. Unblocked in this thread, and in the
        // reader started from it, either of which the kernel then delivers it to.
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        for number in numbers { sigaddset(&unblocked, number) }
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
        DetachedThread.start(name: "apsio-signals") {
            var byte: UInt8 = 0
            while true {
                let count = read(reading.rawValue, &byte, 1)
                if count == 1 {
                    continuation.yield(Int32(byte))
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    continuation.finish()
                    return
                }
            }
        }
    }

    /// Turns a signal's default action off for the whole process: SIGPIPE, which a write to a
    /// socket the peer closed would otherwise raise (OpenSSL writes with write(2), not with
    /// MSG_NOSIGNAL), so that the write fails with EPIPE instead of killing the daemon.
    package static func ignore(_ number: Int32) {
        _ = signal(number, SIG_IGN)
    }

    /// The signals go back to being ignored, as they were while handled: a late delivery during
    /// the stop neither runs a handler nor kills the process.
    deinit {
        for number in numbers { _ = signal(number, SIG_IGN) }
    }
}
