@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) internal import _Concurrency
internal import CLinux

#if canImport(Glibc)
internal import Glibc
#endif

/// The executors a daemon runs its tasks on instead of the Swift runtime's defaults on Linux
/// (libdispatch's main queue and global pool): the main thread's loop and a pool of threads of
/// its own (`JobPool`), neither of which wakes while there is nothing to run. With libdispatch's
/// pool, whose watchdog timer fires every second once a task has run, an idle daemon woke once a
/// second (docs/performance.md, "Idle").
///
/// `run` installs them before any task exists, starts `main` as the first task and runs the main
/// thread's loop: the process's entry point hands over to it (apsiod's main.swift). Installing
/// uses the runtime's executor factory, which Swift 6.3 ships as SPI
/// (`ExperimentalCustomExecutors`); the tests of the built daemons run on it.
package enum DaemonExecutors {
    /// Installs the executors, runs `main` on them, and exits the process with its status once
    /// it returns. Call it once, from the entry point, before anything else starts a task.
    package static func run(_ main: @escaping @Sendable () async -> Int32) -> Never {
        _createExecutors(factory: Factory.self)
        Task {
            let status = await main()
            exit(status)
        }
        try? Factory.main.run()
        exit(0)
    }

    /// One thread a CPU the process may run on, at least two, as the runtime's pool has.
    package static var defaultPoolThreads: Int {
        max(2, Int(apsio_usable_cpus()))
    }

    private enum Factory: ExecutorFactory {
        static let main = MainLoopExecutor()
        static let pool = PoolExecutor(threads: defaultPoolThreads)
        static var mainExecutor: any MainExecutor { main }
        static var defaultExecutor: any TaskExecutor { pool }
    }
}

/// An executor whose jobs a `JobPool` runs: jobs come in through it, delayed ones at their
/// deadline on CLOCK_MONOTONIC.
protocol JobPoolExecutor: SchedulingExecutor {
    var jobs: JobPool<UnownedJob>! { get }
}

extension JobPoolExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        jobs.enqueue(UnownedJob(job))
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C) {
        jobs.enqueue(UnownedJob(job), deadline: ScheduledDeadline.after(delay))
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C) {
        jobs.enqueue(UnownedJob(job), deadline: ScheduledDeadline.after(clock.now.duration(to: instant)))
    }
}

/// The pool every task without an executor of its own runs on.
final class PoolExecutor: TaskExecutor, JobPoolExecutor, @unchecked Sendable {
    private(set) var jobs: JobPool<UnownedJob>!

    init(threads: Int) {
        jobs = JobPool(name: "apsio-pool", threads: threads, maxThreads: 64) { [unowned self] job in
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}

/// The main thread's loop: the main actor's executor, serial since it is one thread.
final class MainLoopExecutor: MainExecutor, JobPoolExecutor, @unchecked Sendable {
    private(set) var jobs: JobPool<UnownedJob>!

    init() {
        jobs = JobPool(name: "apsio-main", threads: 0, maxThreads: 0) { [unowned self] job in
            job.runSynchronously(on: self.asUnownedSerialExecutor())
        }
    }

    /// The thread that runs the loop: the main thread.
    private var thread: pthread_t?

    func run() throws {
        thread = pthread_self()
        jobs.drain()
    }

    func stop() { jobs.stop() }

    var isMainExecutor: Bool { true }

    func checkIsolated() {
        precondition(isIsolatingCurrentContext() == true, "not on the main thread's loop")
    }

    func isIsolatingCurrentContext() -> Bool? {
        guard let thread else { return false }
        return pthread_equal(thread, pthread_self()) != 0
    }
}

/// A delay as a deadline on CLOCK_MONOTONIC. The standard clocks (continuous, suspending) and the
/// daemon's measure time in `Duration`; a clock that does not is a programming error here.
enum ScheduledDeadline {
    static func after<D: DurationProtocol>(_ delay: D) -> UInt64 {
        guard let delay = delay as? Duration else {
            preconditionFailure("a delay of \(D.self) cannot be scheduled: only clocks measured in Duration can")
        }
        let now = MonotonicNanoseconds.now()
        guard delay > .zero else { return now }
        let (seconds, attoseconds) = delay.components
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return UInt64.max / 2 }
        let (sum, late) = now.addingReportingOverflow(whole &+ UInt64(attoseconds / 1_000_000_000))
        return late ? UInt64.max / 2 : sum
    }
}
