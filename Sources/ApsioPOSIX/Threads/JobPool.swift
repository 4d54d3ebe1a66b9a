#if canImport(Glibc)
internal import Glibc
#endif

/// The jobs of an executor and the threads that run them, with no timer but the deadline of the
/// earliest delayed job: a pool with nothing to do sleeps until a job comes.
///
/// Why not libdispatch's pool, which the Swift runtime uses by default on Linux: it watches its
/// pool with a timer that fires every second for as long as the process lives, so that a daemon
/// nobody watches still wakes once a second (docs/performance.md, "Idle"). The one thing that
/// timer does, starting a thread when every thread is blocked while jobs wait, is done here by a
/// rescuer that sleeps until jobs wait with no thread free, then gives them a second.
///
/// Jobs run in the order they came (priorities are not used: the daemon runs no work of different
/// urgency on the pool). Delayed jobs (`Task.sleep`, deadlines) are kept in a heap by deadline on
/// CLOCK_MONOTONIC; one waiting thread, the timekeeper, sleeps until the earliest, and the others
/// until a job comes.
///
/// Generic over the job so that its tests can give it closures; the executors give it the
/// runtime's jobs.
final class JobPool<Job>: @unchecked Sendable {
    /// What a thread of the pool does with a job it takes.
    typealias Run = (Job) -> Void

    private struct Delayed {
        var deadline: UInt64
        /// Jobs of the same deadline run in the order they came.
        var order: UInt64
        var job: Job

        func before(_ other: Delayed) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : order < other.order
        }
    }

    /// Every field below is guarded by it.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Threads waiting for a job, with no deadline.
    private let work: UnsafeMutablePointer<pthread_cond_t>
    /// The timekeeper, waiting for a job or the earliest deadline.
    private let time: UnsafeMutablePointer<pthread_cond_t>
    /// The rescuer, waiting for jobs that wait with no thread free.
    private let stuck: UnsafeMutablePointer<pthread_cond_t>

    private var ready: [Job] = []
    private var readyHead = 0
    private var delayed: [Delayed] = []
    private var nextOrder: UInt64 = 0
    /// Threads waiting on `work`.
    private var waiting = 0
    /// The deadline the timekeeper sleeps until; nil while no thread keeps time.
    private var timekeeper: UInt64?
    /// Jobs taken so far: the rescuer's sign that the pool moves.
    private var taken: UInt64 = 0
    private var threads = 0
    /// The rescuer is in its second of watching: no need to wake it.
    private var rescuerWatching = false
    private let maxThreads: Int
    private var stopping = false

    private let name: String
    private let run: Run

    /// A pool whose threads (`threads` of them at first, named `name`) run each job with `run`;
    /// with `threads` 0 none is started, and the caller runs the jobs (`drain`).
    init(name: String, threads: Int, maxThreads: Int, run: @escaping Run) {
        self.name = name
        self.run = run
        self.maxThreads = max(threads, maxThreads)
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        work = Self.condition(monotonic: false)
        time = Self.condition(monotonic: true)
        stuck = Self.condition(monotonic: true)
        for _ in 0..<threads { startThread() }
        if threads > 0 {
            DetachedThread.start(name: "apsio-rescue") { [self] in rescue() }
        }
    }

    private static func condition(monotonic: Bool) -> UnsafeMutablePointer<pthread_cond_t> {
        let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        if monotonic { pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC) }
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
        return condition
    }


    // MARK: - Jobs in

    func enqueue(_ job: Job) {
        pthread_mutex_lock(mutex)
        ready.append(job)
        if waiting > 0 {
            pthread_cond_signal(work)
        } else if timekeeper != nil {
            pthread_cond_signal(time)
        } else if !rescuerWatching {
            // Every thread is running a job: the rescuer watches that they move on.
            pthread_cond_signal(stuck)
        }
        pthread_mutex_unlock(mutex)
    }

    /// `job` runs once CLOCK_MONOTONIC reaches `deadline` (nanoseconds).
    func enqueue(_ job: Job, deadline: UInt64) {
        pthread_mutex_lock(mutex)
        push(Delayed(deadline: deadline, order: nextOrder, job: job))
        nextOrder &+= 1
        if let kept = timekeeper {
            if deadline < kept { pthread_cond_signal(time) }
        } else if waiting > 0 {
            // One of the waiting threads becomes the timekeeper.
            pthread_cond_signal(work)
        }
        pthread_mutex_unlock(mutex)
    }

    // MARK: - Jobs out

    /// Runs jobs on the calling thread until `stop`; for a pool started without threads (the main
    /// thread's).
    func drain() {
        while let job = take() { run(job) }
    }

    /// Makes every thread's `drain` return once the job it runs now, if any, is done, and ends
    /// the rescuer; jobs still waiting are not run.
    func stop() {
        pthread_mutex_lock(mutex)
        stopping = true
        pthread_cond_broadcast(work)
        pthread_cond_broadcast(time)
        pthread_cond_broadcast(stuck)
        pthread_mutex_unlock(mutex)
    }

    private func startThread() {
        threads += 1
        DetachedThread.start(name: name) { [self] in drain() }
    }

    /// The next job to run, waiting for one; nil once stopped.
    private func take() -> Job? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while true {
            if stopping { return nil }
            moveDue(now: MonotonicNanoseconds.now())
            if readyHead < ready.count {
                let job = ready[readyHead]
                readyHead += 1
                if readyHead == ready.count {
                    ready.removeAll(keepingCapacity: true)
                    readyHead = 0
                } else if readyHead > 1024, readyHead * 2 > ready.count {
                    ready.removeFirst(readyHead)
                    readyHead = 0
                }
                taken &+= 1
                // Delayed jobs still wait, and nobody keeps time: a waiting thread takes it over.
                if !delayed.isEmpty, timekeeper == nil, waiting > 0 { pthread_cond_signal(work) }
                // Jobs still wait and this was the last free thread (an enqueue that found it
                // waiting did not tell the rescuer): the rescuer watches from now.
                if jobsWaitForAThread, !rescuerWatching { pthread_cond_signal(stuck) }
                return job
            }
            if timekeeper == nil, let earliest = delayed.first?.deadline {
                timekeeper = earliest
                var until = timespec(tv_sec: Int(earliest / 1_000_000_000), tv_nsec: Int(earliest % 1_000_000_000))
                pthread_cond_timedwait(time, mutex, &until)
                timekeeper = nil
            } else {
                waiting += 1
                pthread_cond_wait(work, mutex)
                waiting -= 1
            }
        }
    }

    /// Moves the delayed jobs whose deadline has passed to the ready ones. Called locked.
    private func moveDue(now: UInt64) {
        while let first = delayed.first, first.deadline <= now {
            ready.append(popFirst().job)
        }
    }

    // MARK: - Rescue

    /// Sleeps until jobs wait and no thread is free; then watches for a second at a time for as
    /// long as that lasts (a busy pool wakes it once a second, an idle one never): if no job was
    /// taken in that second (every thread blocked in a job), it starts one more thread, up to
    /// `maxThreads`.
    private func rescue() {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while true {
            while !jobsWaitForAThread, !stopping { pthread_cond_wait(stuck, mutex) }
            if stopping { return }
            rescuerWatching = true
            let seen = taken
            let deadline = MonotonicNanoseconds.now() + 1_000_000_000
            var until = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
            // Nothing signals it while it watches: the wait ends at the deadline.
            while MonotonicNanoseconds.now() < deadline { pthread_cond_timedwait(stuck, mutex, &until) }
            rescuerWatching = false
            if taken == seen, jobsWaitForAThread, threads < maxThreads { startThread() }
        }
    }

    /// Called locked.
    private var jobsWaitForAThread: Bool { readyHead < ready.count && waiting == 0 && timekeeper == nil }

    // MARK: - The heap of delayed jobs

    private func push(_ item: Delayed) {
        delayed.append(item)
        var child = delayed.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard delayed[child].before(delayed[parent]) else { break }
            delayed.swapAt(child, parent)
            child = parent
        }
    }

    private func popFirst() -> Delayed {
        let first = delayed[0]
        let last = delayed.removeLast()
        guard !delayed.isEmpty else { return first }
        delayed[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < delayed.count, delayed[left].before(delayed[smallest]) { smallest = left }
            if right < delayed.count, delayed[right].before(delayed[smallest]) { smallest = right }
            guard smallest != parent else { return first }
            delayed.swapAt(parent, smallest)
            parent = smallest
        }
    }
}

/// CLOCK_MONOTONIC in nanoseconds, the clock of every deadline of the pools.
enum MonotonicNanoseconds {
    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }
}
