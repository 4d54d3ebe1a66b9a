import ApsioCore

/// One thing wrong in the configuration, where it is and what to do about it: printed as
/// `PATH:LINE: MESSAGE` (or `PATH: MESSAGE` for the whole file), the form compilers and editors
/// jump to. No message ever holds an app key.
package struct ConfigurationProblem: Sendable, Equatable, CustomStringConvertible {
    package var path: String
    /// 1-based; nil when the problem is the file as a whole (missing key, unreadable file).
    package var line: Int?
    package var message: String

    package init(path: String, line: Int?, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    package var description: String {
        if let line { "\(path):\(line): \(message)" } else { "\(path): \(message)" }
    }

    /// A file's problems as an editor lists them: the whole-file ones first, then by line, each
    /// line's in the order found.
    package static func inLineOrder(_ problems: [UnitFileProblem], path: String) -> [ConfigurationProblem] {
        problems.enumerated()
            .sorted { ($0.element.line ?? 0, $0.offset) < ($1.element.line ?? 0, $1.offset) }
            .map { ConfigurationProblem(path: path, line: $0.element.line, message: $0.element.message) }
    }
}
