/// One `Match=FIELD=VALUE` or `Exclude=FIELD=VALUE` of an app file: a journal field compared, as
/// journalctl compares its matches, byte for byte with a value.
package struct JournalFieldMatch: Sendable, Hashable, CustomStringConvertible {
    package let field: String
    package let value: String

    /// The trusted fields (set by journald, `_` first) that the reader keeps and a match may name.
    /// The others it never reads (`_HOSTNAME`, `_CMDLINE`, `_BOOT_ID`…): they are the same for every
    /// line of a unit on a box, or unbounded, and are refused rather than never matching.
    package static let trustedFields: Set<String> = [
        "_PID", "_COMM", "_EXE", "_UID", "_SYSTEMD_UNIT", "_SYSTEMD_INVOCATION_ID", "_TRANSPORT",
    ]
    /// The longest value a match may hold: what the reader keeps of a field (a body longer than
    /// that is cut before it could be compared).
    package static let maxValueBytes = 1024

    /// Why `FIELD=VALUE` is not a match; nil when it is one.
    package static func problem(field: String, value: String) -> String? {
        let bytes = Array(field.utf8)
        guard (1...64).contains(bytes.count),
            bytes.allSatisfy({ ($0 >= 0x41 && $0 <= 0x5a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5f }),
            !(bytes[0] >= 0x30 && bytes[0] <= 0x39)
        else { return "\(field) is not a journal field name (A-Z, 0-9 and _, not starting with a digit, at most 64)" }
        if field.hasPrefix("_"), !trustedFields.contains(field) {
            return "\(field) is a trusted field apsiod does not read; it can match " + trustedFields.sorted().joined(separator: ", ")
                + " and the unit's own fields (SYSLOG_IDENTIFIER, PRIORITY, MESSAGE_ID, CODE_FILE…)"
        }
        guard value.utf8.count <= maxValueBytes else { return "the value is longer than \(maxValueBytes) bytes" }
        return nil
    }

    /// A match known to be valid (`problem(field:value:)` said nothing).
    package init(field: String, value: String) {
        self.field = field
        self.value = value
    }

    package var description: String { "\(field)=\(value)" }
}

/// An app's `Match=` and `Exclude=` lines: an entry of its unit is delivered when, for each field
/// the matches name, it has one of that field's values (journalctl: the same field ORed,
/// different fields ANDed), and it has none of the excluded values.
package struct JournalEntrySelection: Sendable, Hashable {
    package var matches: [JournalFieldMatch]
    package var excludes: [JournalFieldMatch]

    package static let everything = JournalEntrySelection(matches: [], excludes: [])

    package init(matches: [JournalFieldMatch], excludes: [JournalFieldMatch]) {
        self.matches = matches
        self.excludes = excludes
    }

    package var isEverything: Bool { matches.isEmpty && excludes.isEmpty }
}
