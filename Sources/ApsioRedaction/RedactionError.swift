/// A `Redact=` pattern of an app file that cannot be used. The app is not started with a
/// redaction it did not ask for: the operator fixes the pattern.
package struct RedactionError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Reason: Sendable, Equatable {
        /// The regular expression does not compile; the message is the compiler's.
        case invalid(String)
        /// It matches the empty text, so it would put `[REDACTED]` between every character.
        case matchesEmpty
    }

    package let pattern: String
    package let reason: Reason

    package init(pattern: String, reason: Reason) {
        self.pattern = pattern
        self.reason = reason
    }

    package var description: String {
        switch reason {
        case .invalid(let message): "Redact=\(pattern) is not a valid regular expression: \(message)"
        case .matchesEmpty: "Redact=\(pattern) matches the empty text; make it match at least one character"
        }
    }
}
