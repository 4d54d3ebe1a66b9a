internal import ApsioPOSIX
internal import COpenSSL
#if canImport(Glibc)
internal import Glibc
#endif

/// One OpenSSL `SSL_CTX`, configured once and shared by every connection made from it: TLS 1.2 at
/// least, and for a client, peer verification that no option turns off.
final class TLSContext: @unchecked Sendable {
    struct ConfigurationError: Error, Equatable {
        let reason: String
    }

    let raw: OpaquePointer

    private init(method: OpaquePointer?) throws(ConfigurationError) {
        Self.ignoreBrokenPipes()
        guard let raw = SSL_CTX_new(method) else {
            throw ConfigurationError(reason: "SSL_CTX_new failed: \(OpenSSLErrors.drain())")
        }
        self.raw = raw
        guard apsio_ssl_ctx_set_min_proto_tls12(raw) == 1 else {
            throw ConfigurationError(reason: "cannot require TLS 1.2: \(OpenSSLErrors.drain())")
        }
        apsio_ssl_ctx_set_nonblocking_modes(raw)
        apsio_ssl_ctx_ignore_unexpected_eof(raw)
    }

    /// A client context that trusts `caFile` alone when given (a private CA, the tests' CA), and
    /// the system's trust store otherwise; with `identity`, it presents that certificate to a
    /// server that asks for one.
    static func client(caFile: String?, identity: HTTPClient.ClientIdentity? = nil) throws(ConfigurationError) -> TLSContext {
        let context = try TLSContext(method: TLS_client_method())
        SSL_CTX_set_verify(context.raw, SSL_VERIFY_PEER, nil)
        if let caFile {
            guard SSL_CTX_load_verify_locations(context.raw, caFile, nil) == 1 else {
                throw ConfigurationError(reason: "cannot load the CA file \(caFile): \(OpenSSLErrors.drain())")
            }
        } else {
            guard SSL_CTX_set_default_verify_paths(context.raw) == 1 else {
                throw ConfigurationError(reason: "cannot load the system trust store: \(OpenSSLErrors.drain())")
            }
        }
        if let identity { try context.use(certificateFile: identity.certificateFile, privateKeyFile: identity.keyFile) }
        return context
    }

    /// The certificate chain this side presents, and its key, both PEM.
    private func use(certificateFile: String, privateKeyFile: String) throws(ConfigurationError) {
        guard SSL_CTX_use_certificate_chain_file(raw, certificateFile) == 1 else {
            throw ConfigurationError(reason: "cannot load the certificate \(certificateFile): \(OpenSSLErrors.drain())")
        }
        guard SSL_CTX_use_PrivateKey_file(raw, privateKeyFile, SSL_FILETYPE_PEM) == 1 else {
            throw ConfigurationError(reason: "cannot load the private key \(privateKeyFile): \(OpenSSLErrors.drain())")
        }
        guard SSL_CTX_check_private_key(raw) == 1 else {
            throw ConfigurationError(reason: "the private key does not match the certificate: \(OpenSSLErrors.drain())")
        }
    }

    /// A server context with a certificate chain and its key, both PEM.
    static func server(certificateFile: String, privateKeyFile: String) throws(ConfigurationError) -> TLSContext {
        let context = try TLSContext(method: TLS_server_method())
        try context.use(certificateFile: certificateFile, privateKeyFile: privateKeyFile)
        return context
    }

    /// OpenSSL writes to the socket with write(2), which raises SIGPIPE on a connection the peer
    /// closed; a daemon must get EPIPE instead of dying. Plain sockets use MSG_NOSIGNAL.
    private static func ignoreBrokenPipes() {
        ProcessSignals.ignore(SIGPIPE)
    }

    deinit { SSL_CTX_free(raw) }
}
