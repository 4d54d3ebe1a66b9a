import Testing

@testable import ApsioAgent
import ApsioCore
import ApsioTestSupport

/// How a served app logs its live channel's failures (`ServedApp`): a line only when it changes.
@Suite struct LogOnChangeTests {
    /// A failure repeated on every retry is logged once; after an answer, the next one again.
    @Test func aFailureIsLoggedOncePerRun() {
        let lines = LogLines()
        let log = LogOnChange(lines.logger(.live), level: .warning)
        for failure in ["refused", "refused", "refused", nil, "refused", "timed out", "timed out"] { log.note(failure) }
        #expect(lines.all == ["refused", "refused", "timed out"])
        #expect(lines.levels == [.warning, .warning, .warning])
    }
}
