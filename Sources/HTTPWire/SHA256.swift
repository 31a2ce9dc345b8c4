import COpenSSL

/// SHA-256 (FIPS 180-4), computed by OpenSSL (`EVP_Digest`): for secrets the server keeps only a digest of, such as
/// a live session's resume token.
public enum SHA256 {
    /// The digest size in bytes.
    public static let digestSize = 32

    /// Computes the SHA-256 digest of `bytes`.
    /// - Parameter bytes: The message.
    /// - Returns: The 32-byte digest.
    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        let message = Array(bytes)
        var digest = [UInt8](repeating: 0, count: digestSize)
        var length: UInt32 = 0
        let done = message.withUnsafeBytes {
            EVP_Digest($0.baseAddress, $0.count, &digest, &length, EVP_sha256(), nil)
        }
        precondition(done == 1 && length == UInt32(digestSize), "OpenSSL's SHA-256 failed")
        return digest
    }

    /// The digest of `bytes` as 64 lowercase hexadecimal digits.
    /// - Parameter bytes: The message.
    public static func hexDigest(_ bytes: some Collection<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(2 * digestSize)
        for byte in hash(bytes) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
