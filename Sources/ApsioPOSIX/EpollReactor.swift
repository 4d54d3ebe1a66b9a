internal import CLinux
#if canImport(Glibc)
internal import Glibc
#endif
import Synchronization

/// A thread that waits, in `epoll_wait`, for the `Readiness.wait`s begun on it, and runs the jobs
/// of the tasks that prefer it: a loop.
///
/// A wait is one `epoll_ctl` from the waiting task's thread into the set of that thread's loop
/// (`current`; the process's `shared` reactor for a thread that is no loop), and when the
/// descriptor is ready (or the wait's time is up) that loop takes the descriptor out of the set
/// and resumes the task. Dispatch sources, which this replaces, took a manager thread to register
/// each source and a worker thread to settle and cancel it before the task was resumed: about 40
/// system calls and three threads woken for each HTTP exchange.
///
/// A server's connections run as tasks that prefer one of the `loops` (one a core), so a request
/// is read, handled and answered by the thread that was woken for its bytes, and so are the
/// default actors its handler calls: one thread woken for a request, not one to see the bytes and
/// another to run the task. A job enqueued from another thread (an actor's answer, a task resumed
/// elsewhere) wakes the loop through its eventfd, and only when the loop is asleep.
///
/// Waits are one-shot (`EPOLLONESHOT`) and level-triggered, so a descriptor that is ready already
/// when the wait starts is reported at once. Two waits on one descriptor (a socket read and
/// written at the same time) cannot both be in the set under the same number: the second waits on
/// a duplicate of it (`F_DUPFD_CLOEXEC`), closed when that wait ends. Every change to the set and
/// to the waits happens under one lock, so a wait ends exactly once, whichever of ready, timeout and
/// cancellation comes first, and its descriptor is out of the set before the waiting task resumes
/// (it may close the descriptor right away).
///
/// Nothing run on a loop may block: every connection of that loop would wait behind it (password
/// checks have threads of their own for this, `PasswordCheckThreads`).
final class EpollReactor: TaskExecutor, Sendable {
    /// Called once with how a wait ended.
    typealias Resume = @Sendable (Result<Readiness.Outcome, CancellationError>) -> Void

    /// One wait, from `Readiness.wait` until it is settled. Its fields change only under the
    /// reactor's lock.
    final class Waiter: @unchecked Sendable {
        /// -1 for a wait that only has a deadline.
        let fd: Int32
        let event: Readiness.Event
        let timeout: Duration?
        fileprivate var phase = Phase.new
        fileprivate var resume: Resume?

        init(fd: Int32, event: Readiness.Event, timeout: Duration?) {
            self.fd = fd
            self.event = event
            self.timeout = timeout
        }
    }

    fileprivate enum Phase {
        case new
        /// Cancelled before it was registered: registering resumes it at once.
        case cancelledEarly
        /// In the set under `token`, as `registeredFD` (its own descriptor or a duplicate).
        case waiting(token: UInt64, registeredFD: Int32, duplicate: Bool, deadline: UInt64?)
        case done
    }

    private struct State {
        var nextToken: UInt64 = 2
        var waiting: [UInt64: Waiter] = [:]
        /// When the timer is set to go off; `UInt64.max` when it is not set.
        var armedDeadline = UInt64.max
    }

    /// Jobs of the tasks that prefer this loop, and whether its thread sleeps in `epoll_wait`.
    private struct Jobs {
        var queue: [UnownedJob] = []
        var sleeping = false
    }

    /// The reactor of every thread that is no loop: the daemon's waits, and those of tasks that
    /// run on the task pool.
    static let shared = EpollReactor(name: "apsio-readiness")

    /// One loop a core the process may run on (its affinity: a cpuset, `taskset`; at most 16),
    /// started when a server first asks for one.
    static let loops: [EpollReactor] = {
        let usable = Int(apsio_usable_cpus())
        let cores = usable > 0 ? usable : Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        return (0..<min(max(cores, 1), 16)).map { EpollReactor(name: "apsio-loop-\($0)") }
    }()

    private static let nextLoopIndex = Atomic<Int>(0)

    /// The loops in turn: a connection each.
    static func nextLoop() -> EpollReactor {
        let loops = loops
        return loops[nextLoopIndex.wrappingAdd(1, ordering: .relaxed).oldValue % loops.count]
    }

    /// The loop whose thread this is, or nil on any other thread.
    static var current: EpollReactor? {
        guard let pointer = pthread_getspecific(currentKey) else { return nil }
        return Unmanaged<EpollReactor>.fromOpaque(pointer).takeUnretainedValue()
    }

    private static let currentKey: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "cannot make the reactors' thread key")
        return key
    }()

    /// The timer's and the eventfd's tokens in the set; waits count from 2.
    private static let timerToken: UInt64 = 0
    private static let wakeToken: UInt64 = 1

    private let epoll: Int32
    private let timer: Int32
    private let wakeFD: Int32
    private let state = Mutex(State())
    private let jobs = Mutex(Jobs())

    private init(name: String) {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        // Without these no descriptor can be waited for, and nothing the process does would work.
        precondition(epoll >= 0, "epoll_create1: \(String(cString: strerror(errno)))")
        timer = timerfd_create(CLOCK_BOOTTIME, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        precondition(timer >= 0, "timerfd_create: \(String(cString: strerror(errno)))")
        wakeFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        precondition(wakeFD >= 0, "eventfd: \(String(cString: strerror(errno)))")
        for (fd, token) in [(timer, Self.timerToken), (wakeFD, Self.wakeToken)] {
            var event = epoll_event()
            event.events = EPOLLIN.rawValue
            event.data.u64 = token
            precondition(epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) == 0, "cannot watch the reactor's own descriptors")
        }
        DetachedThread.start(name: name) { [self] in run() }
    }

    // MARK: Jobs

    /// Runs `job` on this loop's thread, after what is already queued. From another thread while
    /// the loop sleeps, one write to its eventfd wakes it; from the loop itself, or while it is
    /// awake, nothing more is needed: it takes every queued job before it sleeps again.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let wake = jobs.withLock { jobs -> Bool in
            jobs.queue.append(job)
            defer { jobs.sleeping = false }
            return jobs.sleeping
        }
        guard wake else { return }
        var one: UInt64 = 1
        _ = write(wakeFD, &one, MemoryLayout<UInt64>.size)
    }

    // MARK: Waits

    /// Puts the wait into the set; `resume` is called once, from whichever thread settles it.
    func register(
        _ waiter: Waiter, resume: @escaping Resume
    ) {
        let deadline = waiter.timeout.map { Self.bootTimeNanoseconds() &+ Self.nanoseconds($0) }
        let settled: Result<Readiness.Outcome, CancellationError>? = state.withLock { state in
            if case .cancelledEarly = waiter.phase {
                waiter.phase = .done
                return .failure(CancellationError())
            }
            let token = state.nextToken
            state.nextToken += 1
            var event = epoll_event()
            event.events = (waiter.event == .readable ? EPOLLIN.rawValue : EPOLLOUT.rawValue) | EPOLLONESHOT.rawValue
            event.data.u64 = token
            var registeredFD = waiter.fd
            var duplicate = false
            // A wait for no descriptor (a sleep) has only its deadline.
            var added = waiter.fd < 0 || epoll_ctl(epoll, EPOLL_CTL_ADD, waiter.fd, &event) == 0
            if !added, errno == EEXIST {
                let copy = fcntl(waiter.fd, F_DUPFD_CLOEXEC, 0)
                if copy >= 0 {
                    added = epoll_ctl(epoll, EPOLL_CTL_ADD, copy, &event) == 0
                    if added { (registeredFD, duplicate) = (copy, true) } else { Glibc.close(copy) }
                }
            }
            guard added else {
                // Not a descriptor epoll can watch (a regular file is always ready) or not one at
                // all: the caller's read or write says which, as it would after any wake-up.
                waiter.phase = .done
                return .success(.ready)
            }
            waiter.phase = .waiting(token: token, registeredFD: registeredFD, duplicate: duplicate, deadline: deadline)
            waiter.resume = resume
            state.waiting[token] = waiter
            if let deadline, deadline < state.armedDeadline { arm(deadline, in: &state) }
            return nil
        }
        if let settled { resume(settled) }
    }

    /// Ends the wait with `CancellationError` unless it ended already.
    func cancel(_ waiter: Waiter) {
        let resume = state.withLock { state -> Resume? in
            switch waiter.phase {
            case .new:
                waiter.phase = .cancelledEarly
                return nil
            case .cancelledEarly, .done:
                return nil
            case .waiting(let token, _, _, _):
                return remove(token, from: &state)
            }
        }
        resume?(.failure(CancellationError()))
    }

    /// Takes the wait out of the set (closing its duplicate) and hands back its `resume`.
    private func remove(
        _ token: UInt64, from state: inout State
    ) -> Resume? {
        guard let waiter = state.waiting.removeValue(forKey: token),
            case .waiting(_, let registeredFD, let duplicate, _) = waiter.phase
        else { return nil }
        if registeredFD >= 0 { _ = epoll_ctl(epoll, EPOLL_CTL_DEL, registeredFD, nil) }
        if duplicate { Glibc.close(registeredFD) }
        waiter.phase = .done
        defer { waiter.resume = nil }
        return waiter.resume
    }

    // MARK: The thread

    private func run() -> Never {
        _ = pthread_setspecific(Self.currentKey, Unmanaged.passUnretained(self).toOpaque())
        let executor = asUnownedTaskExecutor()
        let capacity = 64
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
        var settled: [(Resume, Readiness.Outcome)] = []
        var ready: [UnownedJob] = []
        while true {
            // It sleeps only with no job queued; a job enqueued from elsewhere meanwhile wakes it.
            let idle = jobs.withLock { jobs -> Bool in
                jobs.sleeping = jobs.queue.isEmpty
                return jobs.sleeping
            }
            let count = epoll_wait(epoll, events, Int32(capacity), idle ? -1 : 0)
            if idle { jobs.withLock { $0.sleeping = false } }
            // A negative count is EINTR: nothing else can fail on a valid set and buffer.
            if count > 0 { settle(events, count: Int(count), into: &settled) }
            // Resumed here, a task that prefers this loop is queued here, and runs below.
            for (resume, outcome) in settled { resume(.success(outcome)) }
            settled.removeAll(keepingCapacity: true)
            // Swapped out whole, so that enqueuing never waits behind jobs being run.
            jobs.withLock { swap(&$0.queue, &ready) }
            for job in ready { job.runSynchronously(on: executor) }
            ready.removeAll(keepingCapacity: true)
        }
    }

    /// Takes what `epoll_wait` reported out of the set, with the waits whose time is up.
    private func settle(
        _ events: UnsafeMutablePointer<epoll_event>, count: Int, into settled: inout [(Resume, Readiness.Outcome)]
    ) {
        state.withLock { state in
            var timerFired = false
            for index in 0..<count {
                let token = events[index].data.u64
                if token == Self.timerToken {
                    timerFired = true
                } else if token == Self.wakeToken {
                    var value: UInt64 = 0
                    _ = read(wakeFD, &value, MemoryLayout<UInt64>.size)
                } else if let resume = remove(token, from: &state) {
                    settled.append((resume, .ready))
                }
            }
            guard timerFired else { return }
            // Read under the lock, before the timer is set again: a deadline set by another
            // thread after this read goes off as an event of its own.
            var expirations: UInt64 = 0
            _ = read(timer, &expirations, MemoryLayout<UInt64>.size)
            expire(into: &settled, state: &state)
        }
    }

    /// Ends the waits whose time is up and sets the timer for the next deadline.
    private func expire(
        into settled: inout [(Resume, Readiness.Outcome)],
        state: inout State
    ) {
        let now = Self.bootTimeNanoseconds()
        var next = UInt64.max
        var due: [UInt64] = []
        for (token, waiter) in state.waiting {
            guard case .waiting(_, _, _, let deadline?) = waiter.phase else { continue }
            if deadline <= now { due.append(token) } else { next = min(next, deadline) }
        }
        for token in due {
            if let resume = remove(token, from: &state) { settled.append((resume, .timedOut)) }
        }
        state.armedDeadline = UInt64.max
        if next != UInt64.max { arm(next, in: &state) }
    }

    /// Sets the timer to go off at `deadline` (`CLOCK_BOOTTIME` nanoseconds). A deadline already
    /// past goes off at once. A later wait never moves it later: the timer going off early finds
    /// nothing due and is set again.
    private func arm(_ deadline: UInt64, in state: inout State) {
        var spec = itimerspec()
        let at = max(deadline, 1)
        spec.it_value.tv_sec = Int(at / 1_000_000_000)
        spec.it_value.tv_nsec = Int(at % 1_000_000_000)
        _ = timerfd_settime(timer, Int32(TFD_TIMER_ABSTIME), &spec, nil)
        state.armedDeadline = deadline
    }

    // MARK: Parts

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? UInt64.max / 2 : whole &+ UInt64(max(0, attoseconds) / 1_000_000_000)
    }

    /// `CLOCK_BOOTTIME`, the clock `ContinuousClock` reads: a deadline keeps counting while the
    /// machine is suspended, as `Task.sleep(until:clock: .continuous)` does.
    private static func bootTimeNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}
