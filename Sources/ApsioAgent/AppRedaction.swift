public import ApsioCore

/// The app file's `Redact=` patterns, compiled. Two are equal when their patterns are: the compiled
/// form follows from them, so a reload that changes no pattern changes no redaction.
public struct AppRedaction: Sendable, Equatable {
    public let patterns: [String]
    public let redactor: Redactor

    public init(patterns: [String] = []) throws(RedactionError) {
        self.patterns = patterns
        redactor = try Redactor(patterns: patterns)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.patterns == rhs.patterns }
}
