import Synchronization

/// Enqueues `each` jobs on `executor` from each of `threads` tasks of the pool at once (each job
/// yielding once first when `yielding`, so that it is enqueued again from the executor itself),
/// and returns how many ran: every job an executor is given must run, whichever thread gives it.
func jobsRun(on executor: any TaskExecutor, fromThreads threads: Int = 8, each: Int = 100, yielding: Bool = false) async -> Int {
    let ran = RanCount()
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<threads {
            group.addTask {
                await withTaskGroup(of: Void.self) { inner in
                    for _ in 0..<each {
                        inner.addTask(executorPreference: executor) {
                            if yielding { await Task.yield() }
                            ran.count.withLock { $0 += 1 }
                        }
                    }
                }
            }
        }
    }
    return ran.count.withLock { $0 }
}

/// Shared with the jobs, which escape the caller's scope.
private final class RanCount: Sendable {
    let count = Mutex(0)
}
