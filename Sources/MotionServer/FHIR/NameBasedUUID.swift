import HTTPWire

/// UUIDs of version 5 (RFC 9562 §5.5): the SHA-1 of a namespace UUID and a name, so the same name in the same
/// namespace always gives the same UUID. The FHIR export names each tenant's systems and each entry this way
/// (docs/fhir.md, "Systems").
enum NameBasedUUID {
    /// The UUID of `name` in `namespace`, as lowercase text (`2ed6657d-e927-568b-95e1-2665a8aea6a2`).
    /// - Parameters:
    ///   - namespace: The namespace UUID as text, with or without a `urn:uuid:` prefix.
    ///   - name: The name; its UTF-8 bytes are hashed.
    /// - Returns: The UUID, or nil when `namespace` is not a UUID.
    static func version5(namespace: String, name: String) -> String? {
        guard let space = bytes(of: namespace) else { return nil }
        var digest = SHA1.hash(space + Array(name.utf8))
        // RFC 9562 §5.5: the first 16 bytes of the digest, with the version (5) and the variant (0b10) set.
        digest[6] = digest[6] & 0x0F | 0x50
        digest[8] = digest[8] & 0x3F | 0x80
        return text(of: digest.prefix(16))
    }

    /// The 16 bytes of a UUID's text, nil when it is not one.
    static func bytes(of uuid: String) -> [UInt8]? {
        let hex = Array((uuid.hasPrefix("urn:uuid:") ? uuid.dropFirst(9) : Substring(uuid)).utf8)
        guard hex.count == 36, [8, 13, 18, 23].allSatisfy({ hex[$0] == UInt8(ascii: "-") }) else { return nil }
        var bytes: [UInt8] = []
        var high: UInt8?
        for (index, character) in hex.enumerated() where ![8, 13, 18, 23].contains(index) {
            guard let nibble = nibble(character) else { return nil }
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return bytes
    }

    /// 16 bytes as UUID text, lowercase.
    static func text(of bytes: some Collection<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for (index, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(index) { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
