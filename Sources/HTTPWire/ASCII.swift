/// Byte constants and character-class predicates used by the parser and the writer.
///
/// The classes follow RFC 9110 §5.6 (tokens, field values) and RFC 3986 §2–3 (URI characters).
enum ASCII {
    /// Result of `parseDecimal(_:)`.
    enum DecimalParseResult: Equatable {
        case value(Int)
        case overflow
        case invalid
    }

    static let tab: UInt8 = 0x09
    static let lineFeed: UInt8 = 0x0A
    static let carriageReturn: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let asterisk: UInt8 = 0x2A
    static let plus: UInt8 = 0x2B
    static let comma: UInt8 = 0x2C
    static let slash: UInt8 = 0x2F
    static let colon: UInt8 = 0x3A
    static let semicolon: UInt8 = 0x3B
    static let equals: UInt8 = 0x3D
    static let question: UInt8 = 0x3F
    static let percent: UInt8 = 0x25
    static let ampersand: UInt8 = 0x26

    /// `tchar` from RFC 9110 §5.6.2.
    static func isTokenChar(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A:
            return true
        case 0x21, 0x23...0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E...0x60, 0x7C, 0x7E:
            return true
        default:
            return false
        }
    }

    /// `SP` or `HTAB`, the characters of `OWS` (RFC 9110 §5.6.3).
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == space || byte == tab
    }

    /// Characters allowed inside a field value: `field-vchar`, `SP` and `HTAB` (RFC 9110 §5.5).
    ///
    /// CR, LF, NUL and every other control character are excluded.
    static func isFieldValueChar(_ byte: UInt8) -> Bool {
        byte == tab || (byte >= 0x20 && byte != 0x7F)
    }

    /// `pchar` plus `/` (RFC 3986 §3.3); `%` is accepted here and validated by the percent decoder.
    static func isPathChar(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x21, 0x24...0x3B, 0x3D, 0x40...0x5A, 0x5F, 0x61...0x7A, 0x7E:
            return true
        default:
            return false
        }
    }

    /// Characters of the `query` component (RFC 3986 §3.4): `pchar`, `/` and `?`.
    static func isQueryChar(_ byte: UInt8) -> Bool {
        byte == question || isPathChar(byte)
    }

    /// Characters of `uri-host [ ":" port ]` (RFC 3986 §3.2.2): reg-name, IP-literal and port characters.
    ///
    /// `@` is deliberately excluded, so userinfo is rejected.
    static func isHostChar(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x21, 0x24...0x2E, 0x30...0x3B, 0x3D, 0x41...0x5B, 0x5D, 0x5F, 0x61...0x7A, 0x7E:
            return true
        default:
            return false
        }
    }

    /// The value of a hexadecimal digit, or `nil` when `byte` is not `HEXDIG`.
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }

    /// ASCII lower-casing of a single byte; other bytes are returned unchanged.
    static func lowercased(_ byte: UInt8) -> UInt8 {
        (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
    }

    /// Compares two byte sequences with ASCII case folding (field names and tokens are case-insensitive).
    static func equalsIgnoringCase(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (left, right) in zip(lhs, rhs) where lowercased(left) != lowercased(right) {
            return false
        }
        return true
    }

    /// The comparison with ASCII case folding, for two strings' bytes, on their contiguous bytes (every native string): header names are compared several times for every response, and
    /// zipping two UTF-8 views steps each through the string's index checks.
    static func equalsIgnoringCase(_ lhs: String.UTF8View, _ rhs: String.UTF8View) -> Bool {
        guard lhs.count == rhs.count else { return false }
        let equal = lhs.withContiguousStorageIfAvailable { left in
            rhs.withContiguousStorageIfAvailable { right in
                for index in left.indices where lowercased(left[index]) != lowercased(right[index]) { return false }
                return true
            }
        }
        if let equal, let equal { return equal }
        return zip(lhs, rhs).allSatisfy { lowercased($0) == lowercased($1) }
    }

    /// Whether every byte of `string` is a field-value character (``isFieldValueChar(_:)``, RFC 9110 §5.5).
    ///
    /// Eight bytes at a time while none of them is a control (below 0x20, or 0x7F): a byte-by-byte test costs about
    /// as much however the class is looked up (a table of 256 bits was no faster than the two comparisons), so
    /// checking a response's values costs less only by looking fewer times. A word with a control in it, where
    /// the tab that is allowed could be, and the bytes short of a word are judged one by one.
    static func isFieldValue(_ string: String) -> Bool {
        string.utf8.withContiguousStorageIfAvailable(isFieldValue) ?? string.utf8.allSatisfy(isFieldValueChar)
    }

    private static func isFieldValue(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        if let base = bytes.baseAddress {
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highBits: UInt64 = 0x8080_8080_8080_8080
            while index + 8 <= bytes.count {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                // Nonzero exactly when some byte is below 0x20 (for the bound 0x20 ≤ 0x80), or is 0x7F.
                let below = (word &- ones &* 0x20) & ~word & highBits
                let delete = word ^ (ones &* 0x7F)
                let isDelete = (delete &- ones) & ~delete & highBits
                if below | isDelete != 0 { break }
                index += 8
            }
        }
        while index < bytes.count {
            guard isFieldValueChar(bytes[index]) else { return false }
            index += 1
        }
        return true
    }

    /// Whether `string` is a token (``isTokenChar(_:)``, RFC 9110 §5.6.2) or empty: a loop of its own, where
    /// ``all(_:_:)`` calls its predicate through a closure for every byte. The loop costs about 14 instructions a
    /// byte whether the class is a `switch` or two 64-bit masks (measured alike).
    static func isTokenOrEmpty(_ string: String) -> Bool {
        string.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes where !isTokenChar(byte) { return false }
            return true
        } ?? string.utf8.allSatisfy(isTokenChar)
    }

    /// Whether every UTF-8 byte of `string` satisfies `predicate`, on the string's contiguous bytes when it has them
    /// (every native string).
    static func all(_ string: String, _ predicate: (UInt8) -> Bool) -> Bool {
        string.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(predicate) } ?? string.utf8.allSatisfy(predicate)
    }

    /// Removes leading and trailing `OWS` (RFC 9110 §5.6.3).
    static func trimmingWhitespace<C: BidirectionalCollection>(_ bytes: C) -> C.SubSequence where C.Element == UInt8 {
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, isWhitespace(bytes[start]) {
            start = bytes.index(after: start)
        }
        while end > start, isWhitespace(bytes[bytes.index(before: end)]) {
            end = bytes.index(before: end)
        }
        return bytes[start..<end]
    }

    /// The non-empty, OWS-trimmed elements of a comma-separated list (RFC 9110 §5.6.1).
    static func listElements(_ value: String) -> [Substring.UTF8View] {
        var elements: [Substring.UTF8View] = []
        for element in value.utf8.split(separator: comma, omittingEmptySubsequences: false) {
            let trimmed = trimmingWhitespace(element)
            if !trimmed.isEmpty {
                elements.append(trimmed)
            }
        }
        return elements
    }

    /// Parses `1*DIGIT` into an `Int`.
    ///
    /// - Returns: `.value` on success, `.overflow` when the digits do not fit, `.invalid` for anything else.
    static func parseDecimal(_ bytes: some Collection<UInt8>) -> DecimalParseResult {
        guard !bytes.isEmpty else { return .invalid }
        var value = 0
        var overflowed = false
        for byte in bytes {
            guard byte >= 0x30 && byte <= 0x39 else { return .invalid }
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = shifted.addingReportingOverflow(Int(byte - 0x30))
            overflowed = overflowed || overflow1 || overflow2
            value = sum
        }
        return overflowed ? .overflow : .value(value)
    }

    /// Adds two non-negative limits without trapping on overflow.
    static func saturatingAdd(_ lhs: Int, _ rhs: Int) -> Int {
        let (sum, overflow) = lhs.addingReportingOverflow(rhs)
        return overflow ? Int.max : sum
    }
}
