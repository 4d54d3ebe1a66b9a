/// An app file's `CAFile=`, `ClientCertificate=` and `ClientKey=`: the TLS its requests to its
/// backend (and to the live origin its policy names) make, for a collector behind a private CA or
/// one that asks for a client certificate. Paths only: OpenSSL reads the files, and the key never
/// passes through apsiod.
package struct AppTLS: Sendable, Equatable {
    /// PEM CA certificates trusted instead of the system's store.
    package var caFile: String?
    /// The client certificate chain and its key, both PEM, presented when the server asks.
    package var clientCertificate: String?
    package var clientKey: String?

    package init(caFile: String? = nil, clientCertificate: String? = nil, clientKey: String? = nil) {
        self.caFile = caFile
        self.clientCertificate = clientCertificate
        self.clientKey = clientKey
    }
}
