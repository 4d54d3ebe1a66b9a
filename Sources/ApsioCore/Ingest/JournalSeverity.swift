/// The two record families a journal entry can belong to.
package enum LogFamily: String, Sendable, Equatable, CaseIterable {
    case logs
    case errors
}

/// journald's `PRIORITY` as an OpenTelemetry severity number and a family (LINUX-PROFILE §0).
package struct JournalSeverity: Sendable, Equatable {
    package let severityNumber: Int
    package let severityText: String
    package let family: LogFamily

    private static let table: [(Int, String)] = [
        (24, "FATAL4"),  // 0 emerg
        (23, "FATAL3"),  // 1 alert
        (21, "FATAL"),  // 2 crit
        (17, "ERROR"),  // 3 err
        (13, "WARN"),  // 4 warning
        (10, "INFO2"),  // 5 notice
        (9, "INFO"),  // 6 info
        (5, "DEBUG"),  // 7 debug
    ]

    /// journald stores an entry without `PRIORITY` as info; an out-of-range one is treated the same,
    /// so no entry is ever dropped for its priority field.
    package static let defaultPriority = 6

    package init(priority: Int?) {
        let priority = priority.flatMap { (0...7).contains($0) ? $0 : nil } ?? Self.defaultPriority
        let (number, text) = Self.table[priority]
        severityNumber = number
        severityText = text
        family = priority <= 3 ? .errors : .logs
    }

    /// From the raw `PRIORITY` field: one ASCII digit.
    package init(priorityField: some Collection<UInt8>) {
        var priority: Int?
        if priorityField.count == 1, let digit = priorityField.first, digit >= 0x30, digit <= 0x37 {
            priority = Int(digit - 0x30)
        }
        self.init(priority: priority)
    }
}
