#if canImport(Glibc)
internal import Glibc
#endif

/// A thread of the daemon's own, named so that `top -H` and `/proc/PID/task/TID/comm` tell it
/// apart. `ThreadExecutor`, `EpollReactor`, `JobPool` and `ProcessSignals` each start one that
/// runs as long as the process; a name lookup starts one that ends with it.
package enum DetachedThread {
    /// Starts `body`, which never returns, on a new thread named `name` (cut to the kernel's 15
    /// bytes). Without its thread the process cannot do the work it exists for, and nothing is
    /// running yet that could be left half done, so a thread that cannot be started stops the
    /// process here.
    package static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let created = tryStart(name: name, body)
        precondition(created == 0, "cannot start the \(name) thread: \(String(cString: strerror(created)))")
    }

    /// Starts `body` on a new thread named `name`, which ends when `body` returns. Returns 0, or
    /// pthread_create's error when no thread could be started (the caller's work then fails, the
    /// process goes on).
    package static func tryStart(name: String, _ body: @escaping @Sendable () -> Void) -> Int32 {
        let threadName = String(name.utf8.prefix(15)) ?? "apsio-thread"
        let retained = Unmanaged.passRetained(Start(name: threadName, body: body)).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { argument in
            guard let argument else { return nil }
            let start = Unmanaged<Start>.fromOpaque(argument).takeRetainedValue()
            start.run()
            return nil
        }, retained)
        guard created == 0 else {
            Unmanaged<Start>.fromOpaque(retained).release()
            return created
        }
        pthread_detach(thread)
        return 0
    }

    private final class Start: Sendable {
        let name: String
        let body: @Sendable () -> Void

        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }

        func run() {
            DetachedThread.nameThisThread(name)
            body()
        }
    }

    /// Through procfs: glibc's `pthread_setname_np` is not visible to Swift without `_GNU_SOURCE`.
    /// A name that cannot be set only makes the thread harder to tell apart.
    fileprivate static func nameThisThread(_ name: String) {
        let file = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard file >= 0 else { return }
        defer { close(file) }
        var name = name
        _ = name.withUTF8 { write(file, $0.baseAddress, $0.count) }
    }
}
