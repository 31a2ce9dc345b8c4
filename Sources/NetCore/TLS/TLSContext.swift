import Basics
import CNetShim
import COpenSSL
import Glibc

/// What TLS connections of one server, or of one client, share: OpenSSL's `SSL_CTX` with the protocol versions,
/// ciphers, ALPN, session resumption, and (on a server) the certificate and key.
///
/// Both sides allow TLS 1.2 and 1.3 only. TLS 1.2 offers forward-secret AEAD suites only (ECDHE with AES-GCM or
/// ChaCha20-Poly1305: no RSA key exchange, no CBC); TLS 1.3 keeps OpenSSL's suites. No compression, no
/// renegotiation. ALPN is `http/1.1`. A server resumes sessions by ticket (TLS 1.3 and 1.2) and by session ID (1.2).
/// Making a context ignores SIGPIPE for the process (OpenSSL writes with `write(2)`).
///
/// ```swift
/// let tls = try TLSContext.server(certificateFile: "data/cert.pem", keyFile: "data/key.pem")
/// var configuration = HTTPServerConfiguration()
/// configuration.tls = tls
/// // on SIGHUP:
/// try tls.reload()
/// ```
public final class TLSContext: Sendable {
    /// Which end of connections the context is for.
    public enum Role: Sendable, Equatable {
        /// Accepts connections with a certificate and key read from PEM files (the chain follows the certificate).
        case server(certificateFile: String, keyFile: String)
        /// Opens connections, verifying the server against the CA certificates of a PEM file, or the system's
        /// when nil, unless `verifiesPeer` is false (a self-signed development certificate).
        case client(certificateAuthorityFile: String?, verifiesPeer: Bool)
    }

    /// The role the context was made for.
    public let role: Role
    private let current: Locked<Handle>

    /// TLS 1.2 suites: ECDHE key exchange and AEAD ciphers only, ECDSA certificates before RSA ones (Mozilla's
    /// "intermediate" list without finite-field Diffie-Hellman).
    static let tls12Ciphers =
        "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
        + "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"

    /// Sessions a server keeps for TLS 1.2 session-ID resumption (OpenSSL's cache, about 1 KiB each).
    static let sessionCacheSize = 20_000

    /// One `SSL_CTX`, freed when the last holder lets go (connections hold OpenSSL's own reference).
    final class Handle: @unchecked Sendable {
        // Safety: a configured SSL_CTX may be used from any thread (OpenSSL locks what it shares, such as the
        // session cache); it is not changed after it is made.
        let context: OpaquePointer
        /// When the certificate's validity ends (servers only).
        let notAfter: String?

        init(context: OpaquePointer, notAfter: String?) {
            self.context = context
            self.notAfter = notAfter
        }

        deinit { SSL_CTX_free(context) }
    }

    private init(role: Role, handle: Handle) {
        self.role = role
        current = Locked(handle)
    }

    /// A server context from a PEM certificate (chain) and its PEM private key (unencrypted).
    /// - Parameters:
    ///   - certificateFile: The certificate, then any intermediate certificates.
    ///   - keyFile: The certificate's private key.
    /// - Returns: The context.
    /// - Throws: ``TLSError`` when a file is missing or unreadable, not PEM, expired or not yet valid, or the key
    ///   does not match the certificate.
    public static func server(certificateFile: String, keyFile: String) throws(TLSError) -> TLSContext {
        let role = Role.server(certificateFile: certificateFile, keyFile: keyFile)
        return TLSContext(role: role, handle: try makeHandle(role, ticketKeysFrom: nil))
    }

    /// A client context.
    /// - Parameters:
    ///   - certificateAuthorityFile: PEM CA certificates to verify servers with; nil uses the system's.
    ///   - verifiesPeer: Whether to verify the server's certificate and name at all.
    /// - Returns: The context.
    /// - Throws: ``TLSError`` when the CA file cannot be loaded.
    public static func client(
        certificateAuthorityFile: String? = nil, verifiesPeer: Bool = true
    ) throws(TLSError)
        -> TLSContext
    {
        let role = Role.client(certificateAuthorityFile: certificateAuthorityFile, verifiesPeer: verifiesPeer)
        return TLSContext(role: role, handle: try makeHandle(role, ticketKeysFrom: nil))
    }

    /// Reads the certificate and key again, for connections accepted from now on; open connections keep what they
    /// began with, and tickets issued before still resume. On failure nothing changes.
    /// - Throws: ``TLSError``, as ``server(certificateFile:keyFile:)`` does.
    public func reload() throws(TLSError) {
        let old = handle
        let new = try Self.makeHandle(role, ticketKeysFrom: old)
        current.withLock { $0 = new }
    }

    /// When the server certificate's validity ends (`2027-12-01 10:00:00 UTC`), nil for a client context.
    public var certificateNotAfter: String? { handle.notAfter }

    /// The context in force.
    var handle: Handle { current.withLock { $0 } }

    /// A new TLS stream over a connected socket, with the context in force.
    /// - Parameters:
    ///   - fd: The connected, non-blocking socket.
    ///   - serverName: For a client, the name (SNI, and what the certificate must name) or numeric address of the
    ///     server.
    /// - Returns: The stream, handshake not yet done; nil when OpenSSL cannot make one or cannot check the name.
    package func makeStream(fd: Int32, serverName: String? = nil) -> TLSStream? {
        let handle = self.handle
        guard let ssl = SSL_new(handle.context) else {
            OpenSSLErrors.clear()
            return nil
        }
        guard SSL_set_fd(ssl, fd) == 1 else {
            OpenSSLErrors.clear()
            SSL_free(ssl)
            return nil
        }
        switch role {
        case .server:
            SSL_set_accept_state(ssl)
        case .client(_, let verifies):
            SSL_set_connect_state(ssl)
            _ = cossl_offer_http11(ssl)
            if let serverName {
                // An address is checked against the certificate's IP entries; a name (`localhost` included) is sent
                // as SNI and checked against its DNS entries. A check that cannot be set up fails the connection.
                let numeric = Self.isNumericAddress(serverName)
                if !numeric { _ = cossl_set_host_name(ssl, serverName) }
                let checked =
                    !verifies
                    || (numeric
                        ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), serverName)
                        : SSL_set1_host(ssl, serverName)) == 1
                guard checked else {
                    OpenSSLErrors.clear()
                    SSL_free(ssl)
                    return nil
                }
            }
        }
        return TLSStream(ssl: ssl)
    }

    /// Whether `host` is a numeric IPv4 or IPv6 address (not a name such as `localhost`).
    static func isNumericAddress(_ host: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1
    }

    private static func makeHandle(_ role: Role, ticketKeysFrom previous: Handle?) throws(TLSError) -> Handle {
        let isServer = if case .server = role { true } else { false }
        // OpenSSL writes to the socket with write(2), not send(MSG_NOSIGNAL): a peer's reset must not kill the
        // process (a server has this already; a client process may not).
        cnet_ignore_sigpipe()
        OpenSSLErrors.clear()
        guard let context = SSL_CTX_new(isServer ? TLS_server_method() : TLS_client_method()) else {
            throw .library(OpenSSLErrors.take(or: "cannot create a context"))
        }
        do throws(TLSError) {
            cossl_ctx_harden(context)
            guard SSL_CTX_set_cipher_list(context, tls12Ciphers) == 1 else {
                throw .library(OpenSSLErrors.take(or: "cipher list refused"))
            }
            switch role {
            case .server(let certificateFile, let keyFile):
                let notAfter = try loadIdentity(into: context, certificateFile: certificateFile, keyFile: keyFile)
                cossl_ctx_select_http11(context)
                cossl_ctx_enable_server_cache(context, sessionCacheSize)
                if let previous { keepTicketKeys(of: previous.context, in: context) }
                return Handle(context: context, notAfter: notAfter)
            case .client(let authorities, let verifies):
                if verifies {
                    SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
                    if let authorities {
                        try requireReadable(authorities)
                        guard SSL_CTX_load_verify_locations(context, authorities, nil) == 1 else {
                            throw .invalidCertificateAuthority(path: authorities, reason: OpenSSLErrors.take())
                        }
                    } else if SSL_CTX_set_default_verify_paths(context) != 1 {
                        throw .library(OpenSSLErrors.take(or: "no system CA certificates"))
                    }
                } else {
                    SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
                }
                return Handle(context: context, notAfter: nil)
            }
        } catch {
            SSL_CTX_free(context)
            throw error
        }
    }

    /// Loads the certificate chain and key and checks them; returns when the certificate expires.
    private static func loadIdentity(
        into context: OpaquePointer, certificateFile: String, keyFile: String
    )
        throws(TLSError) -> String
    {
        try requireReadable(certificateFile)
        try requireReadable(keyFile)
        guard SSL_CTX_use_certificate_chain_file(context, certificateFile) == 1,
            let certificate = SSL_CTX_get0_certificate(context)
        else { throw .invalidCertificate(path: certificateFile, reason: OpenSSLErrors.take()) }
        guard let bio = BIO_new_file(keyFile, "r") else {
            throw .unreadable(path: keyFile, reason: OpenSSLErrors.take())
        }
        let key = cossl_read_private_key(bio)
        BIO_free(bio)
        guard let key else { throw .invalidKey(path: keyFile, reason: OpenSSLErrors.take(or: "no key found")) }
        defer { EVP_PKEY_free(key) }
        guard X509_check_private_key(certificate, key) == 1 else {
            OpenSSLErrors.clear()
            throw .keyMismatch(certificate: certificateFile, key: keyFile)
        }
        guard SSL_CTX_use_PrivateKey(context, key) == 1 else {
            throw .invalidKey(path: keyFile, reason: OpenSSLErrors.take())
        }
        let notBefore = X509_get0_notBefore(certificate)
        let notAfter = X509_get0_notAfter(certificate)
        if X509_cmp_current_time(notAfter) <= 0 {
            throw .expired(path: certificateFile, notAfter: format(notAfter))
        }
        if X509_cmp_current_time(notBefore) >= 0 {
            throw .notYetValid(path: certificateFile, notBefore: format(notBefore))
        }
        return format(notAfter)
    }

    /// A clear error for a path that cannot be opened for reading (OpenSSL's own says only "system lib").
    private static func requireReadable(_ path: String) throws(TLSError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw .unreadable(path: path, reason: "not a regular file")
        }
    }

    /// Copies the session-ticket keys, so tickets issued under the old context resume under the new one.
    private static func keepTicketKeys(of old: OpaquePointer, in new: OpaquePointer) {
        var keys = [UInt8](repeating: 0, count: 80)
        if cossl_ctx_get_ticket_keys(old, &keys, 80) == 1 { _ = cossl_ctx_set_ticket_keys(new, &keys, 80) }
        OpenSSLErrors.clear()
    }

    private static func format(_ time: UnsafePointer<ASN1_TIME>?) -> String {
        var parts = tm()
        guard let time, ASN1_TIME_to_tm(time, &parts) == 1 else { return "an unreadable date" }
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) UTC"
    }
}
