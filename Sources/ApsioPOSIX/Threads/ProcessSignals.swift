import Dispatch

#if canImport(Glibc)
internal import Glibc
#endif

/// Signals a daemon handles as events (SIGTERM, SIGINT, SIGHUP): their default actions are turned
/// off and each delivery arrives in an async stream, so the handling runs as ordinary code rather
/// than in a signal handler. Keep the value alive for as long as the signals should be handled.
package final class ProcessSignals {
    package let events: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]

    package init(_ numbers: [Int32]) {
        let (events, continuation) = AsyncStream<Int32>.makeStream()
        self.events = events
        sources = numbers.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }

    /// Turns a signal's default action off for the whole process: SIGPIPE, which a write to a
    /// socket the peer closed would otherwise raise (OpenSSL writes with write(2), not with
    /// MSG_NOSIGNAL), so that the write fails with EPIPE instead of killing the daemon.
    package static func ignore(_ number: Int32) {
        _ = signal(number, SIG_IGN)
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
