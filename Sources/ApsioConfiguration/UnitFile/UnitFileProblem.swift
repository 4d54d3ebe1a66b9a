/// Something in a unit-syntax file that could not be read. Messages never quote the line: an
/// assignment that lost its `=` may be a secret (an app key) on its own.
package struct UnitFileProblem: Sendable, Equatable {
    /// The 1-based line, or nil when the problem is the whole file (too large, too many lines).
    package var line: Int?
    package var message: String

    package init(line: Int?, message: String) {
        self.line = line
        self.message = message
    }
}
