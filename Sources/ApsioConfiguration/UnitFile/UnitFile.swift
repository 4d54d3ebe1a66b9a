/// A file in the INI syntax of systemd unit files (systemd.syntax(7)), as read: every assignment
/// in file order with the line it was written on, every section header, and what could not be read.
///
/// It says nothing about which sections or keys exist: that is the schema's business, which turns
/// entries into a configuration and reports each problem at its line.
package struct UnitFile: Sendable, Equatable {
    package var sections: [UnitFileSection]
    package var entries: [UnitFileEntry]
    /// Lines that are not a section header, an assignment, a comment or blank; or, with no line,
    /// a reason the whole file was refused (then `entries` is empty).
    package var problems: [UnitFileProblem]

    package init(sections: [UnitFileSection] = [], entries: [UnitFileEntry] = [], problems: [UnitFileProblem] = []) {
        self.sections = sections
        self.entries = entries
        self.problems = problems
    }
}

/// A `[Section]` header.
package struct UnitFileSection: Sendable, Equatable {
    package var name: String
    package var line: Int

    package init(name: String, line: Int) {
        self.name = name
        self.line = line
    }
}

/// One `Key=Value` assignment: key and value trimmed of surrounding whitespace, continuation lines
/// joined, `line` the first physical line of it (1-based).
package struct UnitFileEntry: Sendable, Equatable {
    package var section: String
    package var key: String
    package var value: String
    package var line: Int

    package init(section: String, key: String, value: String, line: Int) {
        self.section = section
        self.key = key
        self.value = value
        self.line = line
    }
}
