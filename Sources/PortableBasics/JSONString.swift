extension Array where Element == UInt8 {
    /// Appends `text` as the inside of a JSON string (RFC 8259 §7), without the quotes: `"` and `\` escaped, the
    /// control characters U+0000…U+001F escaped (`\b`, `\f`, `\n`, `\r`, `\t`, the others `\u00XX` in lowercase),
    /// every other character as its UTF-8 bytes (`/`, U+007F and U+2028/U+2029 included, which JSON allows as they
    /// are).
    ///
    /// ```swift
    /// var line: [UInt8] = []
    /// line.appendJSONEscaped("say \"hi\"\n")  // say \"hi\"\n
    /// ```
    /// - Parameter text: Any string.
    @inlinable
    public mutating func appendJSONEscaped(_ text: String) {
        // Most text needs no escape: one scan, then one copy.
        let copied = text.utf8.withContiguousStorageIfAvailable { utf8 in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else { return false }
            append(contentsOf: utf8)
            return true
        }
        guard copied != true else { return }
        for byte in text.utf8 {
            switch byte {
            case 0x22, 0x5C: append(0x5C, byte)  // \" \\
            case 0x0A: append(0x5C, 0x6E)  // \n
            case 0x0D: append(0x5C, 0x72)  // \r
            case 0x09: append(0x5C, 0x74)  // \t
            case 0x08: append(0x5C, 0x62)  // \b
            case 0x0C: append(0x5C, 0x66)  // \f
            case ..<0x20:
                append(0x5C, 0x75)  // \u
                append(0x30, 0x30)
                append(Self.hexDigit(byte >> 4), Self.hexDigit(byte & 0x0F))
            default: append(byte)
            }
        }
    }

    /// Appends `text` as a quoted JSON string, escaped as ``appendJSONEscaped(_:)``: `"a\tb"` for a, a tab and b.
    /// - Parameter text: Any string.
    @inlinable
    public mutating func appendJSONString(_ text: String) {
        append(0x22)
        appendJSONEscaped(text)
        append(0x22)
    }

    @inlinable
    mutating func append(_ first: UInt8, _ second: UInt8) {
        append(first)
        append(second)
    }

    @inlinable
    static func hexDigit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x57 + nibble }
}
