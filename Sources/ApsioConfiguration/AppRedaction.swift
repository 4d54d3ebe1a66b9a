import ApsioCore
package import ApsioRedaction

/// The app file's `Redact=` patterns, compiled, and the built-in rules its `RedactRules=` leaves on.
/// Two are equal when their patterns and rules are: the compiled form follows from them, so a
/// reload that changes neither changes no redaction.
package struct AppRedaction: Sendable, Equatable {
    package let patterns: [String]
    package let rules: RedactionRuleSet
    package let redactor: Redactor

    package init(patterns: [String] = [], rules: RedactionRuleSet = .standard) throws(RedactionError) {
        self.patterns = patterns
        self.rules = rules
        redactor = try Redactor(patterns: patterns, rules: rules)
    }

    package static func == (lhs: Self, rhs: Self) -> Bool { lhs.patterns == rhs.patterns && lhs.rules == rhs.rules }
}
