import HTTPWire
import SessionStore

/// A live session's resume token (docs/protocol.md §3.1): 32 bytes from the system's cryptographic generator, written
/// as 43 characters of base64url. The server keeps only its SHA-256 (``digest(of:)``) and compares digests in
/// constant time, so neither the store nor the timing of a refusal tells anything about a token.
enum ResumeToken {
    /// A new token.
    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for _ in 0..<4 { withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) } }
        return Base64URL.encode(bytes)
    }

    /// The SHA-256 of a token's text.
    static func digest(of token: String) -> [UInt8] { SHA256.hash(Array(token.utf8)) }

    /// Whether two digests are equal, in time that does not depend on where they differ.
    static func matches(_ digest: [UInt8], _ expected: [UInt8]) -> Bool {
        guard digest.count == expected.count else { return false }
        var difference: UInt8 = 0
        for index in digest.indices { difference |= digest[index] ^ expected[index] }
        return difference == 0
    }
}
