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
    /// batch a second would otherwise keep every exchange's wait (and wake for its timer) for 30 s.
    @Test(arguments: [false, true])
    func aSettledWaitIsFreedLongBeforeItsTimeout(cancelled: Bool) async throws {
        let pipe = try Pipe()
        weak var finished: Readiness.Waiter?
        do {
            let waiter = Readiness.Waiter(fd: pipe.write.rawValue, event: cancelled ? .readable : .writable)
            finished = waiter
            if cancelled { waiter.settle(.failure(CancellationError())) }
            let outcome = await withCheckedContinuation { continuation in
                waiter.start(timeout: .seconds(3600), queue: Readiness.queue) { continuation.resume(returning: $0) }
            }
            #expect((try? outcome.get()) == (cancelled ? nil : .ready))
        }
        // Dispatch lets go of a cancelled source's handlers on its own queue, soon after.
        for _ in 0..<500 where finished != nil { try await Task.sleep(for: .milliseconds(10)) }
        #expect(finished == nil)
    }

    @Test func errorsCarryTheCallAndReason() {
        #expect(throws: SystemError("close", errno: EBADF)) {
            try retryingInterrupts("close") { Glibc.close(-1) }
        }
        #expect("\(SystemError("open", errno: ENOENT))" == "open: No such file or directory")
    }
}
