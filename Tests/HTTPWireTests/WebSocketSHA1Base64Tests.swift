import HTTPWire
import Testing

private func hex(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}

struct WebSocketSHA1Base64Tests {
    /// FIPS 180-2 Appendix A / RFC 3174 §7.3 vectors.
    @Test(arguments: [
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        ("The quick brown fox jumps over the lazy dog", "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"),
        (
            String(repeating: "0123456701234567012345670123456701234567012345670123456701234567", count: 10),
            "dea356a2cddd90c7a7ecedc5ebb563934f460452"
        ),
    ])
    func sha1MatchesPublishedVectors(message: String, digest: String) {
        #expect(hex(SHA1.hash(Array(message.utf8))) == digest)
    }

    @Test func sha1OfOneMillionAs() {
        #expect(hex(SHA1.hash(Array(repeating: 0x61, count: 1_000_000))) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    @Test(arguments: 54...66)
    func sha1HandlesPaddingBoundaries(length: Int) {
        // Lengths around 55/56/64 bytes exercise the one- and two-block padding cases.
        let digest = SHA1.hash(Array(repeating: 0x61, count: length))
        #expect(digest.count == 20)
        #expect(digest != SHA1.hash(Array(repeating: 0x61, count: length + 1)))
    }

    /// RFC 4648 §10 test vectors.
    @Test(arguments: [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ])
    func base64MatchesRFC4648Vectors(plain: String, encoded: String) {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
        #expect(Base64.decode(encoded) == Array(plain.utf8))
    }

    @Test func base64RoundTripsAllByteValues() {
        let bytes = (0...255).map { UInt8($0) }
        for length in [0, 1, 2, 3, 100, 256] {
            let slice = Array(bytes.prefix(length))
            #expect(Base64.decode(Base64.encode(slice)) == slice)
        }
        #expect(Base64.encode([0xFB, 0xFF]) == "+/8=")
    }

    @Test(arguments: [
        "Zg", "Zg=", "Zm9v=", "Z===", "====", "Zg==Zg==", "Zm9v\n", " Zm9v", "Zm-v", "Zm_v", "Zh==", "Zm9=", "Zg=a",
    ])
    func base64DecodingIsStrict(_ text: String) {
        #expect(Base64.decode(text) == nil)
    }
}
