package import ApsioCore

/// What `backend.conf` sets, each nil when the file leaves it to the command line or the default.
package struct BackendSettings: Sendable, Equatable {
    package var listenHost: String?
    package var listenPort: Int?
    package var origin: LiveOrigin?
    package var intervalSeconds: Int?
    package var accountsPath: String?
    package var tlsCertificate: String?
    package var tlsKey: String?

    package init() {}
}
