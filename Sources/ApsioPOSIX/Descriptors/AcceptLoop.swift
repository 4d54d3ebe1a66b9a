#if canImport(Glibc)
internal import Glibc
#endif
internal import CLinux

/// The accept loop of every server in the package (the control socket, the HTTP servers): waits
/// for the listener on the reactor, accepts each connection close-on-exec and non-blocking from
/// its first instant, and runs what `admit` makes of it as a child task, so that cancelling the
/// loop cancels every connection and waits for them. With `onLoops`, each connection's task
/// prefers one of the reactor's loops in turn (`Readiness.nextLoop`).
package enum AcceptLoop {
    /// Out of descriptors (EMFILE and its kin): how long to wait for some to close, rather than
    /// spin on a listener that stays readable.
    package static let descriptorShortageBackoff: Duration = .milliseconds(100)

    /// Runs until the task is cancelled. `admit` gets each connection and returns its work, or
    /// nil when it dealt with the connection at once (refused it, closed it).
    package static func run(
        _ listener: Int32, clock: any AgentClock, onLoops: Bool = false,
        admit: (OwnedFileDescriptor) -> (@Sendable () async -> Void)?
    ) async {
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled {
                do {
                    _ = try await Readiness.wait(listener, for: .readable)
                } catch {
                    break
                }
                while true {
                    let raw = accept4(listener, nil, nil, Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue))
                    if raw < 0 {
                        let code = errno
                        if code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM {
                            try? await clock.sleep(for: descriptorShortageBackoff)
                        }
                        break
                    }
                    guard let work = admit(OwnedFileDescriptor(taking: raw)) else { continue }
                    if onLoops {
                        group.addTask(executorPreference: Readiness.nextLoop(), operation: work)
                    } else {
                        group.addTask(operation: work)
                    }
                }
            }
        }
    }
}
