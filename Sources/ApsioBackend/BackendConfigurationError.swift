/// Why the backend will not start, or an accounts file cannot be used. Each message
/// is one line an operator can act on, and names no secret.
package enum BackendConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    case usage(String)
    case invalidApp(String)
    case invalidTester(String)
    case invalidOrigin(String)
    /// A plain-HTTP live origin outside local development on loopback (16.7).
    case plainOriginRefused(origin: String, reason: String)
    case invalidListen(String)
    case invalidAccounts(String)
    case accountsUnreadable(path: String, reason: String)
    case accountsUnwritable(path: String, reason: String)

    package var description: String {
        switch self {
        case .usage(let message): message
        case .invalidApp(let message): "--app: \(message)"
        case .invalidTester(let message): "--tester: \(message)"
        case .invalidOrigin(let message): "--live-origin: \(message)"
        case .plainOriginRefused(let origin, let reason):
            "refusing the live origin \(origin): \(reason). A backend that serves devices publishes only an https:// origin (spec 16.7); plain http:// on loopback is for local development: add --dev and listen on 127.0.0.1 or ::1"
        case .invalidListen(let message): "--listen: \(message)"
        case .invalidAccounts(let message): message
        case .accountsUnreadable(let path, let reason): "cannot read the accounts file \(path): \(reason)"
        case .accountsUnwritable(let path, let reason): "cannot write the accounts file \(path): \(reason)"
        }
    }
}
