@testable import ApsioPOSIX
import ApsioTestSupport
import Dispatch
import Synchronization
import Testing

/// The daemon's task pool, with closures for jobs: jobs run, delayed ones at their deadlines in
/// deadline order, a job that comes while the pool waits for a deadline runs at once, and a pool
/// whose every thread is blocked gets another. Waits are generous bounds on something that must
/// happen, never measures of how fast. Each test waits on a thread of its own (`onOwnThread`),
/// never on the test process's task pool, which the other tests need meanwhile.
@Suite struct JobPoolTests {
    typealias Job = @Sendable () -> Void

    static func pool(threads: Int, maxThreads: Int = 4) -> JobPool<Job> {
        JobPool<Job>(name: "test-pool", threads: threads, maxThreads: maxThreads) { $0() }
    }

    static func later(_ milliseconds: UInt64) -> UInt64 { MonotonicNanoseconds.now() + milliseconds * 1_000_000 }

    /// Waits for `count` signals, each within 30 s.
    static func wait(_ semaphore: DispatchSemaphore, _ count: Int = 1) -> Bool {
        (0..<count).allSatisfy { _ in semaphore.wait(timeout: .now() + 30) == .success }
    }

    @Test func delayedJobsRunInTheOrderOfTheirDeadlines() async throws {
        try await onOwnThread {
            let pool = Self.pool(threads: 1)
            defer { pool.stop() }
            let order = Mutex<[Int]>([])
            let done = DispatchSemaphore(value: 0)
            for (index, milliseconds) in [(3, 90), (1, 30), (2, 60)] {
                pool.enqueue({ order.withLock { $0.append(index) }; done.signal() }, deadline: Self.later(UInt64(milliseconds)))
            }
            #expect(Self.wait(done, 3))
            let ran = order.withLock { $0 }
            #expect(ran == [1, 2, 3])
        }
    }

    @Test func aJobRunsAtOnceWhileTheOnlyThreadWaitsForAFarDeadline() async throws {
        try await onOwnThread {
            let pool = Self.pool(threads: 1)
            defer { pool.stop() }
            let far = Atomic<Bool>(false)
            pool.enqueue({ far.store(true, ordering: .relaxed) }, deadline: Self.later(3_600_000))
            let ran = DispatchSemaphore(value: 0)
            pool.enqueue { ran.signal() }
            #expect(Self.wait(ran))
            let farRan = far.load(ordering: .relaxed)
            #expect(!farRan, "the job an hour away still waits")
        }
    }

    @Test func anEarlierDeadlineIsNotHeldBehindALaterOne() async throws {
        try await onOwnThread {
            let pool = Self.pool(threads: 2)
            defer { pool.stop() }
            pool.enqueue({}, deadline: Self.later(3_600_000))
            let ran = DispatchSemaphore(value: 0)
            pool.enqueue({ ran.signal() }, deadline: Self.later(20))
            #expect(Self.wait(ran))
        }
    }

    @Test func jobsComeOutInTheOrderTheyCame() async throws {
        try await onOwnThread {
            let pool = Self.pool(threads: 1)
            defer { pool.stop() }
            let order = Mutex<[Int]>([])
            let done = DispatchSemaphore(value: 0)
            // The first job holds the one thread until every other job is queued behind it.
            let queued = DispatchSemaphore(value: 0)
            pool.enqueue { _ = queued.wait(timeout: .now() + 30) }
            for index in 0..<100 {
                pool.enqueue { order.withLock { $0.append(index) }; done.signal() }
            }
            queued.signal()
            #expect(Self.wait(done, 100))
            let ran = order.withLock { $0 }
            #expect(ran == Array(0..<100))
        }
    }

    /// The one thread blocks in a job until a later job runs: only a thread the rescuer starts
    /// can run that one.
    @Test func aPoolWhoseEveryThreadIsBlockedGetsAnotherThread() async throws {
        try await onOwnThread {
            let pool = Self.pool(threads: 1)
            defer { pool.stop() }
            let released = DispatchSemaphore(value: 0)
            let unblocked = DispatchSemaphore(value: 0)
            pool.enqueue {
                if released.wait(timeout: .now() + 60) == .success { unblocked.signal() }
            }
            pool.enqueue { released.signal() }
            #expect(Self.wait(unblocked))
        }
    }

    @Test func drainReturnsOnceStopped() async throws {
        try await onOwnThread {
            let pool = Self.pool(threads: 0, maxThreads: 0)
            let ran = Atomic<Int>(0)
            let returned = DispatchSemaphore(value: 0)
            pool.enqueue { ran.add(1, ordering: .relaxed) }
            pool.enqueue { pool.stop() }
            pool.enqueue { ran.add(1, ordering: .relaxed) }
            DetachedThread.start(name: "test-drain") {
                pool.drain()
                returned.signal()
            }
            #expect(Self.wait(returned))
            let count = ran.load(ordering: .relaxed)
            #expect(count == 1, "the job after the stop is not run")
        }
    }
}
