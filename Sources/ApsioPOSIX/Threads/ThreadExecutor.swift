import Dispatch
import Synchronization

/// A task executor that runs every job on one thread of its own, in the order the jobs came.
///
/// A task started with it as its preference (`Task(executorPreference:)`) runs there, and so do
/// the default actors it calls and whatever resumes it after a wait. Work that passes data from
/// step to step, as ingest does (read an entry, map it, encode it, free it), then stays on one
/// core: no step waits for memory another core wrote last, and memory is freed by the thread that
/// allocated it. It also keeps such work to one core of the machine at a time.
///
/// Nothing run here may block for long: it would hold up every other task that prefers this
/// executor. The thread lives as long as the process.
package final class ThreadExecutor: TaskExecutor, Sendable {
    /// The thread's name, as `top -H` and `/proc/PID/task/TID/comm` show it (at most 15 bytes).
    package let name: String
    private let pending = Mutex<[UnownedJob]>([])
    /// One signal per job enqueued; the thread takes every job there is when woken, so it may
    /// find nothing after an earlier wake took it, and then waits again.
    private let wake = DispatchSemaphore(value: 0)

    package init(name: String) {
        self.name = String(name.utf8.prefix(15)) ?? "apsio-worker"
        DetachedThread.start(name: self.name) { [self] in run() }
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pending.withLock { $0.append(job) }
        wake.signal()
    }

    private func run() -> Never {
        let executor = asUnownedTaskExecutor()
        var jobs: [UnownedJob] = []
        while true {
            wake.wait()
            // Swapped out whole, so that enqueuing never waits behind jobs being run.
            pending.withLock { swap(&$0, &jobs) }
            for job in jobs { job.runSynchronously(on: executor) }
            jobs.removeAll(keepingCapacity: true)
        }
    }
}
