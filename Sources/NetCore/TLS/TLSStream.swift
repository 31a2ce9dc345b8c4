import CNetShim
import COpenSSL
import Glibc

/// TLS over one connected non-blocking socket: OpenSSL reads and writes the descriptor itself (a socket BIO), and
/// `SSL_ERROR_WANT_READ`/`WANT_WRITE` become the would-block answers that drive epoll interest. Loop thread only.
///
/// Writing differs from a socket in one way the connection must know of. OpenSSL encrypts one record (up to
/// 16 KiB) per call; when the socket cannot take all of it, the record stays with OpenSSL, which must be called
/// again with the same plaintext to write the rest. The stream keeps that plaintext itself and reports it sent, so
/// the connection's queue may change (a queued snapshot replaced by a newer one) without corrupting the record;
/// ``hasUnsentRecord`` then tells the connection that bytes still wait for the socket, and ``flushRecord()``
/// writes them.
package final class TLSStream {
    private let ssl: OpaquePointer
    /// The plaintext of the record OpenSSL holds unwritten, for the retry that writes it (empty when none).
    private var unsentRecord: [UInt8] = []
    /// Set when a read needs the socket to take bytes first (a handshake message or alert OpenSSL must send).
    package private(set) var readWaitsForWritable = false

    /// The most plaintext one `SSL_write` is given: one TLS record (RFC 8446 §5.1), so at most one record waits.
    static let maxRecordPlaintext = 16 * 1024

    init(ssl: OpaquePointer) { self.ssl = ssl }

    deinit { SSL_free(ssl) }

    /// What one handshake step did.
    package enum HandshakeStep: Equatable {
        /// The handshake is complete.
        case done
        /// Wait until the socket is readable.
        case wantsRead
        /// Wait until the socket is writable.
        case wantsWrite
        /// The handshake failed (OpenSSL's reason); the connection must close.
        case failed(String)
    }

    /// Takes the handshake as far as the socket allows.
    package func handshake() -> HandshakeStep {
        let result = SSL_do_handshake(ssl)
        if result == 1 { return .done }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ: return .wantsRead
        case SSL_ERROR_WANT_WRITE: return .wantsWrite
        case SSL_ERROR_SYSCALL:
            let code = closeReason()
            OpenSSLErrors.clear()
            return .failed(code)
        default: return .failed(OpenSSLErrors.take(or: "handshake failed"))
        }
    }

    /// The protocol version agreed (`TLSv1.3`).
    package var protocolVersion: String { String(cString: SSL_get_version(ssl)) }

    /// The ALPN protocol agreed, nil when none.
    package var applicationProtocol: String? {
        var name: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &name, &length)
        guard let name, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: name, count: Int(length)), as: UTF8.self)
    }

    /// The SHA-256 digest of the certificate the peer presented, nil when it presented none.
    package var peerCertificateDigest: [UInt8]? {
        guard let certificate = SSL_get0_peer_certificate(ssl) else { return nil }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, EVP_sha256(), &digest, &length) == 1 else {
            OpenSSLErrors.clear()
            return nil
        }
        return Array(digest.prefix(Int(length)))
    }

    /// Whether the handshake resumed an earlier session.
    package var resumedSession: Bool { SSL_session_reused(ssl) == 1 }

    /// Whether OpenSSL holds received bytes not yet returned (a socket readiness event may not come for them).
    package var hasBufferedInput: Bool { cossl_has_pending(ssl) == 1 }

    /// Reads decrypted bytes; at most one record's worth per call.
    package func receive(into buffer: UnsafeMutableRawBufferPointer) -> Socket.IOResult {
        readWaitsForWritable = false
        let count = SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
        if count > 0 { return .transferred(Int(count)) }
        switch SSL_get_error(ssl, count) {
        case SSL_ERROR_WANT_READ:
            return .wouldBlock
        case SSL_ERROR_WANT_WRITE:
            readWaitsForWritable = true
            return .wouldBlock
        case SSL_ERROR_ZERO_RETURN:
            // close_notify, or (SSL_OP_IGNORE_UNEXPECTED_EOF) the peer closed without one: either ends the stream,
            // as end of file does on a plain socket. HTTP bodies carry their own length, so a cut is still seen.
            return .endOfStream
        case SSL_ERROR_SYSCALL:
            let code = cnet_errno()
            OpenSSLErrors.clear()
            return .failed(code == 0 ? ECONNRESET : code)
        default:
            OpenSSLErrors.clear()
            return .failed(EPROTO)
        }
    }

    /// Encrypts and writes up to one record of `bytes` (`bytes` must not be empty). A record the socket cannot take
    /// whole is kept (``hasUnsentRecord``) and still counted as transferred; while one is kept, nothing new is
    /// taken until ``flushRecord()`` has written it.
    package func send(_ bytes: UnsafeRawBufferPointer) -> Socket.IOResult {
        if !unsentRecord.isEmpty {
            switch flushRecord() {
            case .transferred: break
            case let other: return other
            }
        }
        let count = min(bytes.count, Self.maxRecordPlaintext)
        let written = SSL_write(ssl, bytes.baseAddress, Int32(count))
        if written > 0 { return .transferred(Int(written)) }
        switch SSL_get_error(ssl, written) {
        case SSL_ERROR_WANT_WRITE:
            // The record is encrypted and partly written, or not at all: it leaves with the next flush.
            unsentRecord = Array(UnsafeRawBufferPointer(rebasing: bytes[..<count]))
            return .transferred(count)
        case SSL_ERROR_WANT_READ:
            return .wouldBlock
        default:
            OpenSSLErrors.clear()
            return .failed(EPIPE)
        }
    }

    /// Encrypts and writes `first` and `second` as one record where they fit (a frame header and its payload).
    package func send(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) -> Socket.IOResult {
        guard !first.isEmpty else { return send(second) }
        guard !second.isEmpty else { return send(first) }
        let count = min(first.count + second.count, Self.maxRecordPlaintext)
        return withUnsafeTemporaryAllocation(byteCount: count, alignment: 16) { joined in
            let head = min(first.count, count)
            joined.copyMemory(from: UnsafeRawBufferPointer(rebasing: first[..<head]))
            if count > head {
                UnsafeMutableRawBufferPointer(rebasing: joined[head...]).copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: second[..<(count - head)]))
            }
            return send(UnsafeRawBufferPointer(joined))
        }
    }

    /// Whether a record counted as sent still waits for the socket.
    package var hasUnsentRecord: Bool { !unsentRecord.isEmpty }

    /// Writes the record kept by ``send(_:)``: `.transferred(0)` once it has left (its bytes were counted before)
    /// or when none was kept, `.wouldBlock` while the socket is full.
    package func flushRecord() -> Socket.IOResult {
        guard !unsentRecord.isEmpty else { return .transferred(0) }
        let written = unsentRecord.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
        if written > 0 {
            unsentRecord = []
            return .transferred(0)
        }
        switch SSL_get_error(ssl, written) {
        case SSL_ERROR_WANT_WRITE, SSL_ERROR_WANT_READ:
            return .wouldBlock
        default:
            OpenSSLErrors.clear()
            return .failed(EPIPE)
        }
    }

    /// Sends close_notify if the socket takes it now (RFC 8446 §6.1); a peer that misses it sees the TCP close.
    package func sendCloseNotify() {
        if SSL_shutdown(ssl) < 0 { OpenSSLErrors.clear() }
    }

    private func closeReason() -> String {
        let code = cnet_errno()
        return code == 0 ? "connection closed during the handshake" : String(cString: strerror(code))
    }
}

@available(*, unavailable)
extension TLSStream: Sendable {}
