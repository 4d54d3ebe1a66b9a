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
    /// Whether its `args` held anything: absent, null, `{}` and `[]` hold nothing, and commands
    /// take nothing (16.6). Only that is kept: the arguments of a command that takes none are
    /// never read.
    package let hasArguments: Bool

    package init(id: String, name: String, hasArguments: Bool = false) {
        self.id = id
        self.name = name
        self.hasArguments = hasArguments
    }

    /// The known command this is, when its `args` are empty as 16.6 requires.
    package var known: LiveCommandName? {
        guard !hasArguments else { return nil }
        return LiveCommandName(rawValue: name)
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
    package let result: CommandResultValue

    package init(id: String, name: String, outcome: CommandOutcome, atUnixMs: Int64, result: CommandResultValue) {
        self.id = id
        self.name = name
        self.outcome = outcome
        self.atUnixMs = atUnixMs
        self.result = result
    }
}

/// The `result` member of a `results` body (16.4): what the channel says itself of a command it
/// served or refused, or what the runtime's command returned.
package enum CommandResultValue: Sendable, Equatable {
    /// `{"error": …}`: why the command was refused or could not be carried out.
    case error(String)
    /// `{"until": …}`: the Unix ms a raised log level lasts until.
    case until(unixMs: Int64)
    /// A JSON object the runtime already encoded: a screenshot's wireframe, the diagnostics record.
    case encoded([UInt8])
}
