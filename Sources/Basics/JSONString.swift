/// Which control characters a JSON string writer spells with RFC 8259's two-character escapes (§7); the others
/// are written `\u00XX`, lowercase.
public enum JSONControlEscapes: Sendable {
    /// `\b`, `\f`, `\n`, `\r` and `\t`: what the wire format writes.
    case short
    /// `\n`, `\r` and `\t` only (backspace and form feed as `\u0008` and `\u000c`): what log lines write.
    case lineBreaksAndTabs
}

extension Array where Element == UInt8 {
    /// Appends `text` as the inside of a JSON string (RFC 8259 §7), without the quotes: `"` and `\` escaped, the
    /// control characters U+0000…U+001F escaped as `controlEscapes` says, every other character as its UTF-8
    /// bytes (`/`, U+007F and U+2028/U+2029 included, which JSON allows as they are).
    ///
    /// ```swift
    /// var line: [UInt8] = []
    /// line.appendJSONEscaped("say \"hi\"\n")  // say \"hi\"\n
    /// ```
    /// - Parameters:
    ///   - text: Any string.
    ///   - controlEscapes: How control characters without a short escape of their own are spelled.
    @inlinable
    public mutating func appendJSONEscaped(_ text: String, controlEscapes: JSONControlEscapes = .short) {
        for byte in text.utf8 {
            switch byte {
            case 0x22, 0x5C: append(0x5C, byte)  // \" \\
            case 0x0A: append(0x5C, 0x6E)  // \n
            case 0x0D: append(0x5C, 0x72)  // \r
            case 0x09: append(0x5C, 0x74)  // \t
            case 0x08 where controlEscapes == .short: append(0x5C, 0x62)  // \b
            case 0x0C where controlEscapes == .short: append(0x5C, 0x66)  // \f
            case ..<0x20:
                append(0x5C, 0x75)  // \u
                append(0x30, 0x30)
                append(Self.hexDigit(byte >> 4), Self.hexDigit(byte & 0x0F))
            default: append(byte)
            }
        }
    }

    /// Appends `text` as a quoted JSON string, escaped as ``appendJSONEscaped(_:controlEscapes:)`` with the short
    /// escapes: `"a\tb"` for a, a tab and b.
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
