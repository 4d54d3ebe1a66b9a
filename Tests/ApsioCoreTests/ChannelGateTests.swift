import ApsioCore
import Testing

struct OpenCase: Decodable, Sendable, CustomTestStringConvertible {
    struct Input: Decodable, Sendable {
        let allowed, consent, kill_switch, tester_matches: Bool
        let foreground: String
        let low_power, low_data, data_saver: Bool
    }
    let input: Input
    let channel: String
    let reason: String?
    let why: String
    var testDescription: String { why }
}

@Suite struct ChannelGateTests {
    @Test(arguments: Vectors.cases("live-open.json", as: OpenCase.self))
    func vector(_ c: OpenCase) throws {
        let foreground = try #require(Foreground(rawValue: c.input.foreground))
        let state = ChannelGate.state(
            ChannelGateInputs(
                allowed: c.input.allowed, consent: c.input.consent, killSwitch: c.input.kill_switch,
                testerMatches: c.input.tester_matches, foreground: foreground, lowPower: c.input.low_power,
                lowData: c.input.low_data, dataSaver: c.input.data_saver))
        switch (c.channel, state) {
        case ("open", .open), ("closed", .closed):
            #expect(c.reason == nil)
        case ("paused", .paused(let reason)):
            #expect(reason.rawValue == c.reason)
        default:
            Issue.record("expected \(c.channel) \(c.reason ?? ""), got \(state)")
        }
    }

    /// The default inputs are the state of a fresh install: nothing allowed, so closed.
    @Test func closedUntilTurnedOn() {
        #expect(ChannelGate.state(ChannelGateInputs()) == .closed)
    }
}
