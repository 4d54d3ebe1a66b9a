public import ApsioCore

/// The app file's `Redact=` patterns, compiled, and the built-in rules its `RedactRules=` leaves on.
/// Two are equal when their patterns and rules are: the compiled form follows from them, so a
/// reload that changes neither changes no redaction.
public struct AppRedaction: Sendable, Equatable {
    public let patterns: [String]
    public let rules: RedactionRuleSet
    public let redactor: Redactor

    public init(patterns: [String] = [], rules: RedactionRuleSet = .standard) throws(RedactionError) {
        self.patterns = patterns
        self.rules = rules
        redactor = try Redactor(patterns: patterns, rules: rules)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.patterns == rhs.patterns && lhs.rules == rhs.rules }
}
