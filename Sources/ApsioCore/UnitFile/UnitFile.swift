/// A file in the INI syntax of systemd unit files (systemd.syntax(7)), as read: every assignment
/// in file order with the line it was written on, every section header, and what could not be read.
///
/// It says nothing about which sections or keys exist: that is the schema's business, which turns
/// entries into a configuration and reports each problem at its line.
public struct UnitFile: Sendable, Equatable {
    public var sections: [UnitFileSection]
    public var entries: [UnitFileEntry]
    /// Lines that are not a section header, an assignment, a comment or blank; or, with no line,
    /// a reason the whole file was refused (then `entries` is empty).
    public var problems: [UnitFileProblem]

    public init(sections: [UnitFileSection] = [], entries: [UnitFileEntry] = [], problems: [UnitFileProblem] = []) {
        self.sections = sections
        self.entries = entries
        self.problems = problems
    }
}

/// A `[Section]` header.
public struct UnitFileSection: Sendable, Equatable {
    public var name: String
    public var line: Int

    public init(name: String, line: Int) {
        self.name = name
        self.line = line
    }
}

/// One `Key=Value` assignment: key and value trimmed of surrounding whitespace, continuation lines
/// joined, `line` the first physical line of it (1-based).
public struct UnitFileEntry: Sendable, Equatable {
    public var section: String
    public var key: String
    public var value: String
    public var line: Int

    public init(section: String, key: String, value: String, line: Int) {
        self.section = section
        self.key = key
        self.value = value
        self.line = line
    }
}
