import ApsioCore
@testable import ApsioPOSIX
import Glibc
import Testing

@Suite struct ReadinessTests {
    /// A connected socket pair, both ends owned by the test.
    struct Pipe {
        let read: OwnedFileDescriptor
        let write: OwnedFileDescriptor
        init() throws {
            var fds: [Int32] = [0, 0]
            try retryingInterrupts("socketpair") {
                socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds)
            }
            read = OwnedFileDescriptor(taking: fds[0])
            write = OwnedFileDescriptor(taking: fds[1])
        }
    }

    @Test func readyWhenDataArrives() async throws {
        let pipe = try Pipe()
        async let outcome = Readiness.wait(pipe.read.rawValue, for: .readable, timeout: .seconds(30))
        _ = Glibc.write(pipe.write.rawValue, "x", 1)
        #expect(try await outcome == .ready)
    }

    @Test func timesOutWhenNothingComes() async throws {
        let pipe = try Pipe()
        #expect(try await Readiness.wait(pipe.read.rawValue, for: .readable, timeout: .milliseconds(20)) == .timedOut)
    }

    @Test func writableAtOnce() async throws {
        let pipe = try Pipe()
        #expect(try await Readiness.wait(pipe.write.rawValue, for: .writable, timeout: .seconds(30)) == .ready)
    }

    /// Cancelling the task ends the wait at once with CancellationError, not at the timeout.
    @Test func cancellationEndsTheWait() async throws {
        let pipe = try Pipe()
        let task = Task { try await Readiness.wait(pipe.read.rawValue, for: .readable, timeout: .seconds(3600)) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    /// A wait that is over holds nothing until its timeout would have come: a daemon sending a
    /// batch a second would otherwise keep every exchange's wait for 30 s.
    @Test(arguments: [false, true])
    func aSettledWaitIsFreedLongBeforeItsTimeout(cancelled: Bool) async throws {
        let pipe = try Pipe()
        weak var finished: EpollReactor.Waiter?
        do {
            let waiter = EpollReactor.Waiter(
                fd: cancelled ? pipe.read.rawValue : pipe.write.rawValue, event: cancelled ? .readable : .writable,
                timeout: .seconds(3600))
            finished = waiter
            if cancelled { EpollReactor.shared.cancel(waiter) }
            let outcome = await withCheckedContinuation { continuation in
                EpollReactor.shared.register(waiter) { continuation.resume(returning: $0) }
            }
            #expect((try? outcome.get()) == (cancelled ? nil : .ready))
        }
        #expect(finished == nil)
    }

    /// A socket read and written at once (the bus does) has two waits on one descriptor: each
    /// ends on its own event.
    @Test func twoWaitsOnOneDescriptorEachEndOnTheirOwnEvent() async throws {
        let pipe = try Pipe()
        async let read = Readiness.wait(pipe.read.rawValue, for: .readable, timeout: .seconds(30))
        #expect(try await Readiness.wait(pipe.read.rawValue, for: .writable, timeout: .seconds(30)) == .ready)
        _ = Glibc.write(pipe.write.rawValue, "x", 1)
        #expect(try await read == .ready)
        // And once both are over, the descriptor can be waited for again.
        #expect(try await Readiness.wait(pipe.read.rawValue, for: .readable, timeout: .seconds(30)) == .ready)
    }

    /// A short wait started after a long one still ends on time, and the long one goes on.
    @Test func aShortWaitAfterALongOneTimesOutFirst() async throws {
        let long = try Pipe()
        let short = try Pipe()
        let longWait = Task { try await Readiness.wait(long.read.rawValue, for: .readable, timeout: .seconds(3600)) }
        #expect(try await Readiness.wait(short.read.rawValue, for: .readable, timeout: .milliseconds(20)) == .timedOut)
        #expect(try await Readiness.wait(short.read.rawValue, for: .readable, timeout: .milliseconds(20)) == .timedOut)
        _ = Glibc.write(long.write.rawValue, "x", 1)
        #expect(try await longWait.value == .ready)
    }

    /// A regular file is always ready, as `poll` has it; epoll refuses to watch one.
    @Test func aRegularFileIsReadyAtOnce() async throws {
        let fd = Glibc.open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0)
        let file = OwnedFileDescriptor(taking: fd)
        #expect(try await Readiness.wait(file.rawValue, for: .readable, timeout: .seconds(30)) == .ready)
    }

    /// A sleep on the reactor's timer ends at its deadline, never before.
    @Test func aSleepEndsNoSoonerThanAsked() async throws {
        let start = ContinuousClock.now
        try await Readiness.sleep(for: .milliseconds(30))
        #expect(ContinuousClock.now - start >= .milliseconds(30))
        try await Readiness.sleep(for: .seconds(-1))
    }

    @Test func cancellationEndsASleep() async throws {
        let task = Task { try await Readiness.sleep(for: .seconds(3600)) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    /// The system clock sleeps on the reactor too, to the deadline its own `now` counts.
    @Test func theSystemClockSleepsUntilItsDeadline() async throws {
        let clock = SystemAgentClock()
        let deadline = clock.now().mono + .milliseconds(30)
        try await clock.sleep(until: deadline)
        #expect(clock.now().mono >= deadline)
    }

    @Test func errorsCarryTheCallAndReason() {
        #expect(throws: SystemError("close", errno: EBADF)) {
            try retryingInterrupts("close") { Glibc.close(-1) }
        }
        #expect("\(SystemError("open", errno: ENOENT))" == "open: No such file or directory")
    }
}
