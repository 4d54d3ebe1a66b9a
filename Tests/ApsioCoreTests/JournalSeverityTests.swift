import ApsioCore
import Testing

struct SeverityCase: Decodable, Sendable, CustomTestStringConvertible {
    let priority: Int?
    let severity: Int
    let family: String
    let name: String
    var testDescription: String { name }
}

@Suite struct JournalSeverityTests {
    @Test(arguments: Vectors.cases("journal-severity.json", as: SeverityCase.self))
    func vector(_ c: SeverityCase) {
        let mapped = JournalSeverity(priority: c.priority)
        #expect(mapped.severityNumber == c.severity)
        #expect(mapped.family.rawValue == c.family)
        // The raw journal field maps the same way as the number it spells.
        let field = c.priority.map { Array(String($0).utf8) } ?? []
        #expect(JournalSeverity(priorityField: field) == mapped)
    }

    /// A priority journald would never write is kept as info rather than dropped.
    @Test(arguments: ["8", "-1", "12", "x", " 3", ""])
    func unreadablePriorityIsInfo(_ field: String) {
        let mapped = JournalSeverity(priorityField: Array(field.utf8))
        #expect(mapped.severityNumber == 9 && mapped.family == .logs)
    }
}
