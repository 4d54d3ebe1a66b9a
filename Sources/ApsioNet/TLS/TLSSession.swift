internal import COpenSSL
#if canImport(Glibc)
internal import Glibc
#endif

/// One `SSL` over a non-blocking socket it does not own. Each call does what it can without
/// blocking and says what it waits for; `Transport` does the waiting.
final class TLSSession {
    enum Step {
        case done(Int)
        case wantRead
        case wantWrite
        case endOfStream
        case failed(TransportError)
    }

    private let ssl: OpaquePointer
    private let context: TLSContext

    /// A client session for `host`: SNI and hostname verification for a name, IP verification
    /// (and no SNI, which RFC 6066 forbids for addresses) for an IP literal.
    init(clientOf context: TLSContext, fd: Int32, host: String, hostIsIPLiteral: Bool) throws(TransportError) {
        self.context = context
        guard let ssl = SSL_new(context.raw) else { throw .tls(reason: OpenSSLErrors.drain(), verification: nil) }
        self.ssl = ssl
        guard SSL_set_fd(ssl, fd) == 1 else { throw .tls(reason: OpenSSLErrors.drain(), verification: nil) }
        SSL_set_connect_state(ssl)
        if hostIsIPLiteral {
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1 else {
                throw .tls(reason: "cannot verify against IP \(host): \(OpenSSLErrors.drain())", verification: nil)
            }
        } else {
            guard apsio_ssl_set_tlsext_host_name(ssl, host) == 1, SSL_set1_host(ssl, host) == 1 else {
                throw .tls(reason: "cannot set the host name \(host): \(OpenSSLErrors.drain())", verification: nil)
            }
        }
    }

    init(serverOf context: TLSContext, fd: Int32) throws(TransportError) {
        self.context = context
        guard let ssl = SSL_new(context.raw) else { throw .tls(reason: OpenSSLErrors.drain(), verification: nil) }
        self.ssl = ssl
        guard SSL_set_fd(ssl, fd) == 1 else { throw .tls(reason: OpenSSLErrors.drain(), verification: nil) }
        SSL_set_accept_state(ssl)
    }

    func handshake() -> Step {
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result == 1 { return .done(0) }
        return classify(result)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Step {
        ERR_clear_error()
        var count = 0
        let result = SSL_read_ex(ssl, buffer.baseAddress, buffer.count, &count)
        if result == 1 { return .done(count) }
        return classify(result)
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> Step {
        ERR_clear_error()
        var count = 0
        let result = SSL_write_ex(ssl, bytes.baseAddress, bytes.count, &count)
        if result == 1 { return .done(count) }
        return classify(result)
    }

    private func classify(_ result: Int32) -> Step {
        let code = SSL_get_error(ssl, result)
        switch code {
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        case SSL_ERROR_ZERO_RETURN: return .endOfStream
        case SSL_ERROR_SYSCALL:
            let reason = OpenSSLErrors.drain(orElse: "")
            let number = errno
            if reason.isEmpty && number == 0 { return .endOfStream }
            if number == ECONNRESET || number == EPIPE { return .failed(.reset(String(cString: strerror(number)))) }
            return .failed(.tls(reason: reason.isEmpty ? String(cString: strerror(number)) : reason, verification: nil))
        default:
            let verify = SSL_get_verify_result(ssl)
            let reason = OpenSSLErrors.drain()
            if verify != X509_V_OK {
                return .failed(.tls(reason: reason, verification: String(cString: X509_verify_cert_error_string(verify))))
            }
            return .failed(.tls(reason: reason, verification: nil))
        }
    }

    deinit { SSL_free(ssl) }
}
