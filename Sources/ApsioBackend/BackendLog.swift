import ApsioPOSIX

/// The program's one-line messages on standard error, each prefixed with its name; under systemd
/// they reach the journal. No caller passes a secret: configuration problems never quote an app
/// key, and flags' errors name options, not their values' secrets.
struct BackendLog: Sendable {
    let program: String

    func error(_ message: String) {
        StandardStream.error.write("\(program): \(message)\n")
    }
}
