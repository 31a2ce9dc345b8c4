// OpenSSL 3 (Debian libssl-dev) for Swift: the headers, and static inline wrappers for what Swift cannot import —
// function-like macros (SSL_CTX_set_mode, SSL_set_tlsext_host_name, …) and the SSL_OP_* bits, which OpenSSL 3
// defines through a function-like macro too.
#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/// TLS 1.2 as the lowest version, no compression (CRIME), no renegotiation, a peer's close without close_notify
/// read as the end of the stream, partial writes from buffers that may move between retries, the read and write
/// buffers released while a connection is idle, and reading ahead.
static inline void cossl_ctx_harden(SSL_CTX *ctx) {
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION
                                 | SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_TLSv1 | SSL_OP_NO_TLSv1_1);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER
                              | SSL_MODE_RELEASE_BUFFERS);
    // One recv per read, not one for each record's header and another for its body; SSL_has_pending tells what
    // was read ahead.
    SSL_CTX_set_read_ahead(ctx, 1);
}

/// Servers keep sessions for resumption (TLS 1.2 session IDs) in OpenSSL's in-memory cache, besides tickets.
static inline void cossl_ctx_enable_server_cache(SSL_CTX *ctx, long size) {
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
    SSL_CTX_sess_set_cache_size(ctx, size);
}

/// Clients keep the sessions the server offers (tickets), so a later connection can resume one.
static inline void cossl_ctx_enable_client_cache(SSL_CTX *ctx) {
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
}

/// The 80 bytes of session-ticket keys (name, HMAC and AES keys), so a reloaded context keeps resuming sessions.
static inline int cossl_ctx_get_ticket_keys(SSL_CTX *ctx, unsigned char *keys, long length) {
    return (int)SSL_CTX_get_tlsext_ticket_keys(ctx, keys, length);
}

static inline int cossl_ctx_set_ticket_keys(SSL_CTX *ctx, unsigned char *keys, long length) {
    return (int)SSL_CTX_set_tlsext_ticket_keys(ctx, keys, length);
}

/// Server Name Indication for a client connection.
static inline int cossl_set_host_name(SSL *ssl, const char *name) { return (int)SSL_set_tlsext_host_name(ssl, name); }

/// Whether `ssl` still holds received bytes (plaintext or a record not yet processed).
static inline int cossl_has_pending(const SSL *ssl) { return SSL_has_pending(ssl); }

/// Answers every passphrase prompt with none, so an encrypted key fails to load instead of OpenSSL asking on the
/// terminal.
static inline int cossl_no_passphrase(char *buffer, int size, int writing, void *context) {
    (void)buffer; (void)size; (void)writing; (void)context;
    return 0;
}

/// Reads the first PEM private key of `bio` (never prompting for a passphrase).
static inline EVP_PKEY *cossl_read_private_key(BIO *bio) {
    return PEM_read_bio_PrivateKey(bio, NULL, cossl_no_passphrase, NULL);
}

/// ALPN on a server (RFC 7301 §3.2): `http/1.1` when the client offers it; a client offering only other protocols
/// (h2 alone, say) gets the `no_application_protocol` alert rather than a protocol it did not ask for.
static inline int cossl_select_http11(SSL *ssl, const unsigned char **out, unsigned char *outlength,
                                      const unsigned char *offered, unsigned int offeredLength, void *context) {
    (void)ssl; (void)context;
    static const unsigned char supported[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    unsigned char *selected = NULL;
    unsigned char selectedLength = 0;
    if (SSL_select_next_proto(&selected, &selectedLength, supported, sizeof supported, offered, offeredLength)
        != OPENSSL_NPN_NEGOTIATED)
        return SSL_TLSEXT_ERR_ALERT_FATAL;
    *out = selected;
    *outlength = selectedLength;
    return SSL_TLSEXT_ERR_OK;
}

static inline void cossl_ctx_select_http11(SSL_CTX *ctx) { SSL_CTX_set_alpn_select_cb(ctx, cossl_select_http11, NULL); }

/// A client's ALPN offer: `http/1.1` only. Returns 0 on success (as SSL_set_alpn_protos does).
static inline int cossl_offer_http11(SSL *ssl) {
    static const unsigned char offer[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    return SSL_set_alpn_protos(ssl, offer, sizeof offer);
}

#endif
