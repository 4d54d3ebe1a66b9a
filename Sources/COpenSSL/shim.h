#ifndef APSIO_COPENSSL_SHIM_H
#define APSIO_COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <openssl/rand.h>

// Macros that Swift cannot import, as functions.
static inline long apsio_ssl_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}
static inline int apsio_ssl_ctx_set_min_proto_tls12(SSL_CTX *ctx) {
    return (int)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}
// Partial writes let a non-blocking write return what went out; a moving buffer lets a retry
// after WANT_WRITE pass the same bytes from another address (Swift arrays may move).
static inline void apsio_ssl_ctx_set_nonblocking_modes(SSL_CTX *ctx) {
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}
// A peer that closes without close_notify reads as end of stream; the HTTP framing then says
// whether the message was complete, which is the check that matters.
static inline void apsio_ssl_ctx_ignore_unexpected_eof(SSL_CTX *ctx) {
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION);
}
#endif
