import ApsioCore

/// An app's `JournalEntrySelection` ready to be asked of each entry the reader holds: field names
/// resolved once to the reader's known fields or the app's own, values as bytes. Applied by the
/// reader to the unit's own lines, after the journal's matches found them: one reader serves
/// every app, and an app's choice of lines cannot narrow what the others read.
struct JournalEntryFilter {
    private enum Field {
        case known(JournalField)
        case own([UInt8])
    }

    /// Per field, the values any of which admits the entry.
    private let matches: [(field: Field, values: [[UInt8]])]
    private let excludes: [(field: Field, value: [UInt8])]

    init(_ selection: JournalEntrySelection) {
        var grouped: [(name: String, values: [[UInt8]])] = []
        for match in selection.matches {
            if let index = grouped.firstIndex(where: { $0.name == match.field }) {
                grouped[index].values.append(Array(match.value.utf8))
            } else {
                grouped.append((match.field, [Array(match.value.utf8)]))
            }
        }
        matches = grouped.map { (Self.field($0.name), $0.values) }
        excludes = selection.excludes.map { (Self.field($0.field), Array($0.value.utf8)) }
    }

    var isEverything: Bool { matches.isEmpty && excludes.isEmpty }

    private static func field(_ name: String) -> Field {
        if let known = JournalField.allCases.first(where: { $0.name == name }) { return .known(known) }
        return .own(Array(name.utf8))
    }

    func admits(_ fields: borrowing JournalEntryFields) -> Bool {
        for (field, values) in matches {
            guard Self.value(of: field, in: fields, isAnyOf: values) else { return false }
        }
        for (field, value) in excludes where Self.value(of: field, in: fields, isAnyOf: [value]) {
            return false
        }
        return true
    }

    private static func value(of field: Field, in fields: borrowing JournalEntryFields, isAnyOf values: [[UInt8]]) -> Bool {
        let found: Bool? =
            switch field {
            case .known(let known): fields.withBytes(known) { bytes in values.contains { JournalEntryFields.equal(bytes, $0) } }
            case .own(let name): fields.withOwnField(name) { bytes in values.contains { JournalEntryFields.equal(bytes, $0) } }
            }
        return found ?? false
    }
}
