import ApsioCore
import Testing

@Suite struct ReconnectBackoffTests {
    @Test func backoffDoublesToItsCapAndResets() {
        var backoff = ReconnectBackoff(initial: .milliseconds(250), maximum: .seconds(2))
        let delays = (0..<6).map { _ in backoff.nextDelay() }
        #expect(delays == [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(2), .seconds(2)])
        backoff.reset()
        #expect(backoff.nextDelay() == .milliseconds(250))
    }
}
