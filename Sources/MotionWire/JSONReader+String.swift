/// Strings (RFC 8259 §7): escapes, `\u` surrogate pairs and UTF-8 validation.
extension JSONReader {
    /// Reads a string value and returns it unescaped.
    /// - Throws: `JSONError` for a bad escape, a lone surrogate, a raw control character or invalid UTF-8.
    mutating func readString() throws(JSONError) -> String {
        skipWhitespace()
        guard offset < bytes.count else { throw error(.unexpectedEnd) }
        guard bytes[offset] == UInt8(ascii: "\"") else { throw error(.unexpectedByte) }
        return string(try scanString())
    }

    /// Reads a string value as a token, for comparing it with ``key(_:is:)`` without allocating.
    mutating func readStringToken() throws(JSONError) -> StringToken {
        skipWhitespace()
        guard offset < bytes.count else { throw error(.unexpectedEnd) }
        guard bytes[offset] == UInt8(ascii: "\"") else { throw error(.unexpectedByte) }
        return try scanString()
    }

    /// The unescaped text of a token.
    func string(_ token: StringToken) -> String {
        if token.hasEscapes { return String(decoding: unescapedBytes(token), as: UTF8.self) }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[token.start..<token.end]), as: UTF8.self)
    }

    /// The unescaped text of a token, cut to at most `maxBytes` UTF-8 bytes between two Unicode scalars.
    func string(_ token: StringToken, maxBytes: Int) -> String {
        guard token.hasEscapes else {
            return Self.string(
                utf8: UnsafeRawBufferPointer(rebasing: bytes[token.start..<token.end]), maxBytes: maxBytes)
        }
        return unescapedBytes(token).withUnsafeBytes { Self.string(utf8: $0, maxBytes: maxBytes) }
    }

    private static func string(utf8: UnsafeRawBufferPointer, maxBytes: Int) -> String {
        var end = min(utf8.count, maxBytes)
        // A continuation byte (10xxxxxx) at the cut: back off to the start of the scalar it belongs to.
        while end > 0, end < utf8.count, utf8[end] & 0xC0 == 0x80 { end -= 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: utf8[..<end]), as: UTF8.self)
    }

    /// The unescaped UTF-8 bytes of a token that was validated by ``scanString()``.
    func unescapedBytes(_ token: StringToken) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(token.end - token.start)
        var index = token.start
        while index < token.end {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "\\") else {
                result.append(byte)
                index += 1
                continue
            }
            let escape = bytes[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "b"): result.append(0x08)
            case UInt8(ascii: "f"): result.append(0x0C)
            case UInt8(ascii: "n"): result.append(0x0A)
            case UInt8(ascii: "r"): result.append(0x0D)
            case UInt8(ascii: "t"): result.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = UInt32(hexValue(at: index))
                index += 4
                if scalar >= 0xD800, scalar < 0xDC00 {
                    let low = UInt32(hexValue(at: index + 2))
                    index += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                appendUTF8(scalar, to: &result)
            default: result.append(escape)  // \" \\ \/
            }
        }
        return result
    }

    /// Scans a string starting at its opening quote, validating it, and moves past the closing quote.
    @inline(__always)
    mutating func scanString() throws(JSONError) -> StringToken {
        let start = offset + 1
        var index = start
        var hasEscapes = false
        while true {
            // Eight bytes at a time up to the first one that needs a look: most strings have none before the quote.
            while index &+ 8 <= bytes.count {
                let special = Self.specialBytes(bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                if special != 0 {
                    index &+= special.trailingZeroBitCount &>> 3
                    break
                }
                index &+= 8
            }
            guard index < bytes.count else { throw JSONError(offset: index, reason: .unexpectedEnd) }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                index = try scanEscape(at: index)
            } else if byte < 0x20 {
                throw JSONError(offset: index, reason: .unescapedControlCharacter)
            } else if byte < 0x80 {
                index += 1
            } else {
                index = try scanUTF8Sequence(at: index)
            }
        }
        offset = index + 1
        return StringToken(start: start, end: index, hasEscapes: hasEscapes)
    }

    private static let everyByte: UInt64 = 0x0101_0101_0101_0101

    /// The high bit of each byte of `word` (eight bytes in memory order) set where that byte is a quote, a
    /// backslash, a control character or not ASCII, and perhaps after such a byte (a borrow carries over); zero
    /// when there is none. So the lowest set bit marks the first byte ``scanString()`` must look at.
    @inline(__always)
    private static func specialBytes(_ word: UInt64) -> UInt64 {
        let word = UInt64(littleEndian: word)
        // A byte of `x - 0x01…` has its high bit set where that byte of x is 0 (or ≥ 0x81), of `x - 0x20…` where
        // it is below 0x20 (or ≥ 0xA0): the bytes these flag wrongly are not ASCII, so `word` flags them anyway.
        let quote = word ^ (everyByte &* UInt64(UInt8(ascii: "\"")))
        let backslash = word ^ (everyByte &* UInt64(UInt8(ascii: "\\")))
        let flagged = (quote &- everyByte) | (backslash &- everyByte) | (word &- everyByte &* 0x20) | word
        return flagged & (everyByte &* 0x80)
    }

    /// Validates the escape at `index` (a backslash) and returns the offset after it.
    private func scanEscape(at index: Int) throws(JSONError) -> Int {
        guard index + 1 < bytes.count else { throw JSONError(offset: bytes.count, reason: .unexpectedEnd) }
        switch bytes[index + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return index + 2
        case UInt8(ascii: "u"):
            let unit = try scanHex(at: index + 2)
            switch unit {
            case 0xD800..<0xDC00:
                // RFC 8259 §7: a code point outside the BMP is a UTF-16 surrogate pair of two \u escapes.
                let next = index + 6
                guard next < bytes.count else { throw JSONError(offset: bytes.count, reason: .unexpectedEnd) }
                guard bytes[next] == UInt8(ascii: "\\") else { throw JSONError(offset: index, reason: .loneSurrogate) }
                guard next + 1 < bytes.count else { throw JSONError(offset: bytes.count, reason: .unexpectedEnd) }
                guard bytes[next + 1] == UInt8(ascii: "u") else {
                    throw JSONError(offset: index, reason: .loneSurrogate)
                }
                let low = try scanHex(at: next + 2)
                guard low >= 0xDC00, low < 0xE000 else { throw JSONError(offset: index, reason: .loneSurrogate) }
                return next + 6
            case 0xDC00..<0xE000: throw JSONError(offset: index, reason: .loneSurrogate)
            default: return index + 6
            }
        default: throw JSONError(offset: index, reason: .invalidEscape)
        }
    }

    /// Validates four hex digits at `index` and returns their value.
    private func scanHex(at index: Int) throws(JSONError) -> UInt16 {
        var value: UInt16 = 0
        for position in index..<index + 4 {
            guard position < bytes.count else { throw JSONError(offset: bytes.count, reason: .unexpectedEnd) }
            guard let digit = Self.hexDigit(bytes[position]) else {
                throw JSONError(offset: position, reason: .invalidEscape)
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    private func hexValue(at index: Int) -> UInt16 {
        var value: UInt16 = 0
        for position in index..<index + 4 { value = value << 4 | UInt16(Self.hexDigit(bytes[position]) ?? 0) }
        return value
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Validates one multi-byte UTF-8 sequence at `index` and returns the offset after it.
    ///
    /// RFC 3629 §4: no overlong forms, no surrogates (U+D800…U+DFFF), nothing above U+10FFFF.
    private func scanUTF8Sequence(at index: Int) throws(JSONError) -> Int {
        let lead = bytes[index]
        let length: Int
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            upper = 0x9F
        case 0xF0:
            length = 4
            lower = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            upper = 0x8F
        default: throw JSONError(offset: index, reason: .invalidUTF8)
        }
        guard index + length <= bytes.count else { throw JSONError(offset: bytes.count, reason: .unexpectedEnd) }
        let second = bytes[index + 1]
        guard second >= lower, second <= upper else { throw JSONError(offset: index + 1, reason: .invalidUTF8) }
        for position in index + 2..<index + length where bytes[position] & 0xC0 != 0x80 {
            throw JSONError(offset: position, reason: .invalidUTF8)
        }
        return index + length
    }

    private func appendUTF8(_ scalar: UInt32, to result: inout [UInt8]) {
        switch scalar {
        case ..<0x80:
            result.append(UInt8(scalar))
        case ..<0x800:
            result.append(UInt8(0xC0 | scalar >> 6))
            result.append(UInt8(0x80 | scalar & 0x3F))
        case ..<0x10000:
            result.append(UInt8(0xE0 | scalar >> 12))
            result.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            result.append(UInt8(0x80 | scalar & 0x3F))
        default:
            result.append(UInt8(0xF0 | scalar >> 18))
            result.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            result.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            result.append(UInt8(0x80 | scalar & 0x3F))
        }
    }
}
