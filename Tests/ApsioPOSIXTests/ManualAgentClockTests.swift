import ApsioCore
import ApsioPOSIX
import ApsioTestSupport
import Testing

/// What tests of runtimes on the manual clock stand on: waiting for the code to be asleep on the
/// clock rather than polling for it.
@Suite struct ManualAgentClockTests {
    @Test func asleepReturnsOnceTheTasksSleepAsAsked() async throws {
        let clock = ManualAgentClock()
        let woke = Task {
            try await clock.sleep(until: MonotonicInstant(.seconds(10)))
            return clock.now().mono
        }
        try await clock.asleep { $0 == [MonotonicInstant(.seconds(10))] }
        #expect(clock.sleeperCount == 1)

        // Not yet due: the sleeper stays, and a wait for two sleepers is still waiting.
        clock.advance(by: .seconds(9))
        let two = Task { try await clock.asleep(atLeast: 2) }
        let second = Task { try await clock.sleep(until: MonotonicInstant(.seconds(30))) }
        try await two.value
        clock.advance(by: .seconds(1))
        #expect(try await woke.value == MonotonicInstant(.seconds(10)))
        try await clock.asleep { $0 == [MonotonicInstant(.seconds(30))] }
        second.cancel()
        try await clock.asleep { $0.isEmpty }
    }

    @Test func aCancelledWaitEnds() async throws {
        let clock = ManualAgentClock()
        let waiting = Task { try await clock.asleep(atLeast: 1) }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(clock.sleeperCount == 0)
    }
}
