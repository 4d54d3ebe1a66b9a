import ApsioCore
@testable import ApsioIngest
import ApsioRedaction
import Testing

/// How journal entries enter the window: redacted first, through the policy's gate, and the
/// position moved past what the policy kept out when nothing waits before it.
@Suite struct IngestIntakeTests {
    private static func entry(_ body: String, priority: Int = 6) -> LogRecord {
        LogRecord(timeUnixNano: 1, severity: JournalSeverity(priority: priority), body: body, journalCursor: "after-\(body)")
    }

    private static let now = LiveNow(mono: .origin, wallUnixMs: 1_800_000_000_000)

    private static func intake() throws -> IngestIntake {
        IngestIntake(redactor: try Redactor(patterns: ["card=[0-9 ]{12,19}"]), limits: .spec)
    }

    @Test func entriesAreRedactedBeforeTheyEnterTheWindow() throws {
        var intake = try Self.intake()
        var window = IngestWindow()
        let taken = intake.take(
            [Self.entry("paid with card=4111 1111 1111 1111")], through: "after-batch", into: &window, now: Self.now,
            holding: false, admit: { _ in .unsampled })
        #expect(taken.filtered == 0)
        let body = try #require(IngestWindowTests.bodies(window.front(1)).first)
        #expect(!body.contains("4111"))
        // The batch's own cursor moves the last record's: accepting it moves past the batch.
        #expect(window.removeFirst(1) == "after-batch")
    }

    /// Kept out with nothing before them in the window: their position is the one to save.
    @Test func entriesThePolicyKeepsOutMoveThePosition() throws {
        var intake = try Self.intake()
        var window = IngestWindow()
        let admit: (LogRecord) -> SamplingMark? = { $0.severityNumber >= 13 ? .unsampled : nil }
        let first = intake.take(
            [Self.entry("debug", priority: 7)], through: "after-debug", into: &window, now: Self.now, holding: false, admit: admit)
        #expect(first.filtered == 1 && first.passed == "after-debug" && window.isEmpty)

        // Behind a record that waits, they move that record's cursor instead: nothing to save yet.
        let second = intake.take(
            [Self.entry("warning", priority: 4), Self.entry("info")], through: "after-info", into: &window, now: Self.now,
            holding: false, admit: admit)
        #expect(second.filtered == 1 && second.passed == nil)
        #expect(window.removeFirst(1) == "after-info")
    }

    /// Before the first policy every entry is held, none asked about.
    @Test func beforeTheFirstPolicyEveryEntryIsHeld() throws {
        var intake = try Self.intake()
        var window = IngestWindow()
        let taken = intake.take(
            [Self.entry("a", priority: 7), Self.entry("b")], through: "after-b", into: &window, now: Self.now, holding: true,
            admit: { _ in Issue.record("asked before the first policy"); return nil })
        #expect(taken.filtered == 0 && window.count == 2)
        #expect(window.front(10).isEmpty, "held records do not go")
    }
}
