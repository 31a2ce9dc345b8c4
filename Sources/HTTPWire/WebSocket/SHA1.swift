import COpenSSL

/// SHA-1 (FIPS 180-4, RFC 3174), used only for the WebSocket opening handshake (RFC 6455 §4.2.2), computed by
/// OpenSSL (`EVP_Digest`: 0.55–0.64 µs for the 60-byte handshake input on the development machine, against
/// 0.72–1.1 µs for the hand-written digest it replaced; bench/RESULTS.md).
///
/// SHA-1 is broken for collision resistance; the handshake uses it merely to prove that the server understood the
/// WebSocket request, not for security. Do not use it for anything else.
public enum SHA1 {
    /// The digest size in bytes.
    public static let digestSize = 20

    /// Computes the SHA-1 digest of `bytes`.
    ///
    /// - Parameter bytes: The message.
    /// - Returns: The 20-byte digest.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: digestSize)
        var length: UInt32 = 0
        let done = bytes.withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, &digest, &length, EVP_sha1(), nil) }
        // Only an out-of-memory OpenSSL fails here; a handshake answered with a wrong digest would merely be refused.
        precondition(done == 1 && length == UInt32(digestSize), "OpenSSL's SHA-1 failed")
        return digest
    }
}
