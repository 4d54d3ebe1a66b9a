import ApsioCore
import Testing

/// The spec's numbers, as 16.1–16.6 state them. A change here is a change of the spec's reading.
@Suite struct LimitsTests {
    @Test func numbersOfTheSpec() {
        let l = Limits.spec
        #expect(l.maxTesters == 100)
        #expect(l.maxLinesPerFrames == 200)
        #expect(l.minUploadSpacing == .seconds(1))
        #expect(l.minMetricsOnlySpacing == .seconds(5))
        #expect(l.maxWireframesPerSecond == 2)
        #expect(l.sessionLength == .seconds(1800))
        #expect(l.maxPausedTime == .seconds(60))
        #expect(l.maxSessionBytes == 10_000_000)
        #expect(l.maxDayBytes == 50_000_000)
        #expect(l.commandMemory == .seconds(120))
        #expect(l.nextHoldTime == .seconds(25))
        #expect(l.minHelloInterval == .seconds(15) && l.maxHelloInterval == .seconds(120))
        #expect(l.defaultHelloInterval == .seconds(30))
        #expect(l.maxBodyBytes == 4096)
        #expect(l.raisedLogLevelDuration == .seconds(1800))
    }

    /// Hello intervals follow `Limits`, at and one past each bound.
    @Test func intervalBoundsFollowLimits() {
        var l = Limits.spec
        l.minHelloInterval = .seconds(20)
        l.maxHelloInterval = .seconds(60)
        #expect(HelloInterval.seconds(from: Double(20), limits: l) == .seconds(20))
        #expect(HelloInterval.seconds(from: Double(19), limits: l) == .seconds(20))
        #expect(HelloInterval.seconds(from: Double(60), limits: l) == .seconds(60))
        #expect(HelloInterval.seconds(from: Double(61), limits: l) == .seconds(60))
    }

    @Test func pausedAtAndPastItsLimit() {
        let at = SessionEndInputs(pausedFor: .seconds(60) - .milliseconds(1), remaining: .seconds(10))
        let past = SessionEndInputs(pausedFor: .seconds(60), remaining: .seconds(10))
        #expect(SessionEnd.reason(at) == nil)
        #expect(SessionEnd.reason(past) == .paused)
    }
}
