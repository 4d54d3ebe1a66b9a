/// A `Redact=` pattern of an app file that cannot be used. The app is not started with a
/// redaction it did not ask for: the operator fixes the pattern.
public struct RedactionError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// The regular expression does not compile; the message is the compiler's.
        case invalid(String)
        /// It matches the empty text, so it would put `[REDACTED]` between every character.
        case matchesEmpty
    }

    public let pattern: String
    public let reason: Reason

    public init(pattern: String, reason: Reason) {
        self.pattern = pattern
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .invalid(let message): "Redact=\(pattern) is not a valid regular expression: \(message)"
        case .matchesEmpty: "Redact=\(pattern) matches the empty text; make it match at least one character"
        }
    }
}
