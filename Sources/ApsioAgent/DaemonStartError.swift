package import ApsioNet
package import ApsioState

/// Why the daemon could not start serving, as `apsiod` says it before exiting.
package enum DaemonStartError: Error, CustomStringConvertible {
    /// The state directory's lock: held by another daemon, or not to be opened.
    case state(StateStoreError)
    case http(HTTPClientError)

    package var description: String {
        switch self {
        case .state(let error): error.description
        case .http(let error): "the HTTP client cannot be made: \(error)"
        }
    }
}
