@testable import ApsioPOSIX
import ApsioTestSupport
import Dispatch
import Foundation
import Glibc
import Testing

/// A server's connection runs on one of the reactor's loops: the thread that waits for its bytes
/// runs it, resumes it after every wait begun there, and runs the default actors it calls.
@Suite struct ReactorLoopTests {
    actor Notes {
        private(set) var threads: [String] = []
        func note() { threads.append(currentThreadName()) }
    }

    @Test func aConnectionsWaitsAreSettledByItsOwnLoopWhichRunsItAndItsActors() async throws {
        let pipe = try ReadinessTests.Pipe()
        let loop = Readiness.nextLoop()
        let notes = Notes()
        let names = try await Task(executorPreference: loop) { () throws -> [String] in
            var names = [currentThreadName()]
            await notes.note()
            // Written from another thread once the wait has begun: the loop sleeps until then.
            let writer = pipe.write.rawValue
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) { _ = Glibc.write(writer, "x", 1) }
            #expect(try await Readiness.wait(pipe.read.rawValue, for: .readable, timeout: .seconds(30)) == .ready)
            names.append(currentThreadName())
            // A reader called on the reactor's thread: that of the loop it was begun on.
            let settledOn = await withCheckedContinuation { continuation in
                Readiness.onReady(pipe.read.rawValue, for: .readable, timeout: .seconds(30)) { _ in
                    continuation.resume(returning: currentThreadName())
                }
            }
            names.append(settledOn)
            #expect(try await Readiness.wait(pipe.write.rawValue, for: .writable, timeout: .milliseconds(10)) == .ready)
            names.append(currentThreadName())
            return names
        }.value
        #expect(names.first?.hasPrefix("apsio-loop-") == true)
        #expect(Set(names).count == 1, "every step on one loop's thread: \(names)")
        #expect(await notes.threads == [names[0]])
        // A task that prefers no loop waits on the shared reactor, whose thread is no loop.
        let elsewhere = await withCheckedContinuation { continuation in
            Readiness.onReady(pipe.write.rawValue, for: .writable, timeout: .seconds(30)) { _ in
                continuation.resume(returning: currentThreadName())
            }
        }
        #expect(elsewhere == "apsio-readiness")
    }

    @Test func aWaitOnALoopTimesOutAndIsCancelledLikeAnyOther() async throws {
        let pipe = try ReadinessTests.Pipe()
        let loop = Readiness.nextLoop()
        let outcome = try await Task(executorPreference: loop) {
            try await Readiness.wait(pipe.read.rawValue, for: .readable, timeout: .milliseconds(20))
        }.value
        #expect(outcome == .timedOut)
        let held = Task(executorPreference: loop) {
            try await Readiness.wait(pipe.read.rawValue, for: .readable, timeout: .seconds(3600))
        }
        held.cancel()
        await #expect(throws: CancellationError.self) { try await held.value }
        // The loop goes on: a later wait on the same descriptor is settled when data comes.
        _ = Glibc.write(pipe.write.rawValue, "x", 1)
        #expect(try await Task(executorPreference: loop) { try await Readiness.wait(pipe.read.rawValue, for: .readable) }.value == .ready)
    }

    @Test func jobsEnqueuedFromManyThreadsWhileTheLoopSleepsAllRun() async {
        #expect(await jobsRun(on: Readiness.nextLoop(), yielding: true) == 800)
    }

    @Test func theLoopsAreTakenInTurnOneACoreTheProcessMayUse() async throws {
        // The CPUs of this process's affinity, as the kernel shows them (what `nproc` counts).
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let mask = try #require(status.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed:") }?.split(separator: "\t").last)
        let cores = mask.filter(\.isHexDigit).reduce(0) { $0 + (Int(String($1), radix: 16) ?? 0).nonzeroBitCount }
        let loops = (0..<(2 * EpollReactor.loops.count)).map { _ in Readiness.nextLoop() }
        var names: [String] = []
        for loop in loops { names.append(await Task(executorPreference: loop) { currentThreadName() }.value) }
        #expect(EpollReactor.loops.count == min(max(cores, 1), 16))
        #expect(Set(names).count == EpollReactor.loops.count)
        #expect(names.allSatisfy { $0.hasPrefix("apsio-loop-") })
    }
}
