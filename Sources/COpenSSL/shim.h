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
#endif
