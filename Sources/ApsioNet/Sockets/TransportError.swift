/// What went wrong under HTTP: the client turns these into `HTTPClientError` with the phase it
/// was in, the server into closing the connection.
package enum TransportError: Error, Equatable {
    case timedOut
    /// The peer reset the connection or it broke while writing.
    case reset(String)
    case system(String)
    /// TLS failed; `verification` holds OpenSSL's verify result text when the certificate did not verify.
    case tls(reason: String, verification: String?)
}
