/// One thing wrong in the configuration, where it is and what to do about it: printed as
/// `PATH:LINE: MESSAGE` (or `PATH: MESSAGE` for the whole file), the form compilers and editors
/// jump to. No message ever holds an app key.
public struct ConfigurationProblem: Sendable, Equatable, CustomStringConvertible {
    public var path: String
    /// 1-based; nil when the problem is the file as a whole (missing key, unreadable file).
    public var line: Int?
    public var message: String

    public init(path: String, line: Int?, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    public var description: String {
        if let line { "\(path):\(line): \(message)" } else { "\(path): \(message)" }
    }
}
