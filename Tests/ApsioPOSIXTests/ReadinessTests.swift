import ApsioPOSIX
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

    @Test func errorsCarryTheCallAndReason() {
        #expect(throws: SystemError("close", errno: EBADF)) {
            try retryingInterrupts("close") { Glibc.close(-1) }
        }
        #expect("\(SystemError("open", errno: ENOENT))" == "open: No such file or directory")
    }
}
