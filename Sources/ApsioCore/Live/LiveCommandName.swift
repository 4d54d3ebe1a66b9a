package import ApsioJSON
/// The three commands a viewer can send (16.6).
package enum LiveCommandName: String, Sendable, Equatable, CaseIterable {
    case screenshot
    case diagnostics
    /// The spec's table cell is cut after `raise_`; this is the project's completion of the name.
    /// It lives here alone so that only this line changes if a backend spells it otherwise.
    case raiseLogLevel = "raise_log_level"
}

/// A command as `next` delivered it.
package struct LiveCommand: Sendable, Equatable {
    package let id: String
    package let name: String
    /// `nil` when `args` was absent; commands take empty `args` only.
    package let args: JSONValue?

    package init(id: String, name: String, args: JSONValue? = nil) {
        self.id = id
        self.name = name
        self.args = args
    }

    /// The known command this is, when its `args` are empty as 16.6 requires.
    package var known: LiveCommandName? {
        guard let name = LiveCommandName(rawValue: name) else { return nil }
        switch args {
        case nil, .null: return name
        case .object(let members) where members.isEmpty: return name
        case .array(let items) where items.isEmpty: return name
        default: return nil
        }
    }
}

/// How a command went (16.4 `results`).
package enum CommandOutcome: String, Sendable, Equatable {
    case done
    case failed
    case refused
}

/// A command's result, kept for 2 minutes so a repeated id is answered without running it again.
package struct CommandResult: Sendable, Equatable {
    package let id: String
    package let name: String
    package let outcome: CommandOutcome
    /// When it was served, Unix ms.
    package let atUnixMs: Int64
    package let result: JSONValue

    package init(id: String, name: String, outcome: CommandOutcome, atUnixMs: Int64, result: JSONValue) {
        self.id = id
        self.name = name
        self.outcome = outcome
        self.atUnixMs = atUnixMs
        self.result = result
    }
}
