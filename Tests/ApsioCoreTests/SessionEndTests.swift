import ApsioCore
import Testing

struct StopCase: Decodable, Sendable, CustomTestStringConvertible {
    struct Input: Decodable, Sendable {
        let channel_closed: Bool
        let stop: String?
        let paused_ms: Int64
        let remaining_ms: Int64?
        let session_bytes: Int
        let day_bytes: Int
    }
    let input: Input
    let ends: String?
    let why: String
    var testDescription: String { why }
}

@Suite struct SessionEndTests {
    @Test(arguments: Vectors.cases("live-stop.json", as: StopCase.self))
    func vector(_ c: StopCase) {
        let inputs = SessionEndInputs(
            channelClosed: c.input.channel_closed, stop: c.input.stop, pausedFor: .milliseconds(c.input.paused_ms),
            remaining: c.input.remaining_ms.map { .milliseconds($0) }, sessionBytes: c.input.session_bytes,
            dayBytes: c.input.day_bytes)
        #expect(SessionEnd.reason(inputs)?.rawValue == c.ends)
    }

    /// Before the first `next` answer there is no end time to run out.
    @Test func noRemainingTimeMeansNoUntil() {
        #expect(SessionEnd.reason(SessionEndInputs(remaining: nil)) == nil)
        #expect(SessionEnd.reason(SessionEndInputs(remaining: .milliseconds(-1))) == .until)
    }

    /// The numbers come from `Limits`, so a test can move them and the rule follows.
    @Test func limitsDriveTheRule() {
        var limits = Limits.spec
        limits.maxSessionBytes = 100
        #expect(SessionEnd.reason(SessionEndInputs(remaining: .seconds(1), sessionBytes: 99), limits: limits) == nil)
        #expect(SessionEnd.reason(SessionEndInputs(remaining: .seconds(1), sessionBytes: 100), limits: limits)
            == .sessionBytes)
    }
}
