import ApsioCore

/// The sections and keys a configuration file may hold, and the first pass over a parsed file:
/// every entry is checked against them, so an unknown section, an unknown or misplaced key and a
/// single-value key set twice are reported at their line whatever the values are.
package struct ConfigSchema {
    package struct Key {
        let name: String
        /// A list key appends on every assignment and is emptied by an empty one (`Key=`), as in systemd.
        let isList: Bool

        package static func single(_ name: String) -> Key { Key(name: name, isList: false) }
        package static func list(_ name: String) -> Key { Key(name: name, isList: true) }
    }

    /// In the order the documentation lists them, which is the order suggestions prefer.
    let sections: [(name: String, keys: [Key])]

    package init(sections: [(name: String, keys: [Key])]) {
        self.sections = sections
    }

    /// What a file assigned, by section and key: one entry for a single-value key, the surviving
    /// entries (after resets) for a list key. An empty single value stays: it means "the default".
    package struct Assignments {
        private(set) var values: [String: [UnitFileEntry]] = [:]
        /// List keys whose last reset left them assigned but empty.
        private(set) var assignedLists: Set<String> = []

        package func single(_ section: String, _ key: String) -> UnitFileEntry? { values[section + "/" + key]?.first }
        package func list(_ section: String, _ key: String) -> [UnitFileEntry] { values[section + "/" + key] ?? [] }
        /// Whether the key appeared at all, even only as a reset.
        package func isAssigned(_ section: String, _ key: String) -> Bool {
            values[section + "/" + key] != nil || assignedLists.contains(section + "/" + key)
        }

        fileprivate mutating func set(_ section: String, _ key: String, _ entries: [UnitFileEntry]) {
            values[section + "/" + key] = entries.isEmpty ? nil : entries
            if entries.isEmpty { assignedLists.insert(section + "/" + key) }
        }
    }

    package func collect(_ file: UnitFile, report: (Int?, String) -> Void) -> Assignments {
        let sectionNames = sections.map(\.name)
        for header in file.sections where !sectionNames.contains(header.name) {
            var message = "unknown section [\(header.name)]"
            if let guess = ClosestName.to(header.name, among: sectionNames) { message += "; did you mean [\(guess)]?" }
            else { message += "; this file has " + sectionNames.map { "[\($0)]" }.joined(separator: ", ") }
            report(header.line, message)
        }
        var assignments = Assignments()
        for entry in file.entries {
            guard let section = sections.first(where: { $0.name == entry.section }) else { continue }
            guard let key = section.keys.first(where: { $0.name == entry.key }) else {
                report(entry.line, unknownKeyMessage(entry.key, in: section))
                continue
            }
            if key.isList {
                var entries = assignments.list(section.name, key.name)
                if entry.value.isEmpty { entries.removeAll() } else { entries.append(entry) }
                assignments.set(section.name, key.name, entries)
            } else if let first = assignments.single(section.name, key.name) {
                report(entry.line, "`\(key.name)=` is set again (first on line \(first.line)); it takes one value, keep one line")
            } else {
                assignments.set(section.name, key.name, [entry])
            }
        }
        return assignments
    }

    private func unknownKeyMessage(_ key: String, in section: (name: String, keys: [Key])) -> String {
        var message = "unknown key `\(key)` in [\(section.name)]"
        if let home = sections.first(where: { $0.name != section.name && $0.keys.contains { $0.name == key } }) {
            return message + "; `\(key)=` belongs in [\(home.name)]"
        }
        let names = section.keys.map(\.name)
        if let guess = ClosestName.to(key, among: names) {
            message += "; did you mean `\(guess)`?"
        } else {
            message += "; [\(section.name)] takes " + names.map { "`\($0)=`" }.joined(separator: ", ")
        }
        return message
    }
}
