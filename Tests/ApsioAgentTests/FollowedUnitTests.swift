import ApsioCore
import Testing

@testable import ApsioAgent

/// When what the daemon knows of a unit lets its apps' ingest and hello go (LINUX-PROFILE §2).
@Suite struct FollowedUnitTests {
    static func running(pid: Int32?) -> UnitState {
        UnitState(activeState: "active", mainPID: pid)
    }

    @Test func nothingToReadMeansNothingToWaitFor() {
        #expect(FollowedUnit(state: nil).resourceSettledBecause != nil, "unknown: the bus said it cannot tell")
        #expect(FollowedUnit(state: Self.running(pid: nil)).resourceSettledBecause != nil, "no main process")
    }

    @Test func aMainProcessHoldsTheResourceUntilItsExecutableWasLookedAt() {
        var unit = FollowedUnit(state: Self.running(pid: 100), executableAskedFor: 100)
        #expect(unit.resourceSettledBecause == nil)
        unit.executableReadFor = 100
        #expect(unit.resourceSettledBecause != nil, "looked at, whether or not it could be read")
        unit.state = Self.running(pid: 200)
        #expect(unit.resourceSettledBecause == nil, "a new main process is read again")
    }
}
