/// Numbers (RFC 8259 §6), converted to the nearest `Double`.
///
///     number = [ "-" ] int [ frac ] [ exp ]
///     int    = "0" / ( digit1-9 *DIGIT )
///     frac   = "." 1*DIGIT
///     exp    = ( "e" / "E" ) [ "-" / "+" ] 1*DIGIT
///
/// Most numbers on the wire (`612.5`, `0.98`, `12.345`) have at most 15 significant digits and a small exponent:
/// their digits form an integer below 2^53 that, like the power of ten it is scaled by, is exact in a `Double`,
/// so one IEEE multiplication or division gives the correctly rounded result (Clinger's fast path); numbers of
/// up to 19 digits are scanned by a lean loop, ``scanPlainNumber()``, and the rest by ``scanNumber()``. Shortest
/// round-trip output of a `Double` (JavaScript's `JSON.stringify`, Python's `repr`, Swift's `description`)
/// often has 16 or 17 digits, e.g. `0.5123456789012345`: those, up to 19 digits with `|exponent| ≤ 19`, are
/// rounded exactly with 128-bit integer arithmetic. Every other number goes through `Double(String)`, which is
/// correctly rounded too. Numbers too large for a `Double` read as
/// ±infinity and too small ones as ±0: they are valid JSON, and a decoder decides whether the value is in range.
extension JSONReader {
    /// The digits of a scanned number: `±mantissa × 10^exponent`, exact unless `isTruncated`.
    struct NumberToken {
        var start: Int
        var end: Int
        var isNegative: Bool
        var mantissa: UInt64
        var exponent: Int
        /// Whether non-zero digits beyond the 19th were dropped from `mantissa`.
        var isTruncated: Bool
    }

    private static let maxSignificantDigits = 19
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// Reads a number value.
    /// - Throws: `JSONError` when the next value is not a well-formed number.
    @inline(__always)
    mutating func readNumber() throws(JSONError) -> Double {
        skipWhitespace()
        if let token = scanPlainNumber() { return value(of: token) }
        return value(of: try scanNumber())
    }

    /// Reads a number value if one in the common form starts at the current offset (after whitespace): at most
    /// 19 digits in all and no error. Returns nil without consuming anything otherwise; ``readNumber()`` then
    /// gives the value or the error.
    @inline(__always)
    mutating func readPlainNumber() -> Double? {
        skipWhitespace()
        guard let token = scanPlainNumber() else { return nil }
        return value(of: token)
    }

    /// The nearest `Double` to a scanned number.
    @inline(__always)
    func value(of token: NumberToken) -> Double {
        // Clinger's fast path: both operands are exact, so the one IEEE operation rounds correctly.
        if !token.isTruncated, token.mantissa <= 1 << 53, token.exponent >= -22, token.exponent <= 22 {
            let magnitude = Double(token.mantissa)
            let scaled =
                token.exponent < 0
                ? magnitude / Self.exactPowersOfTen[-token.exponent]
                : magnitude * Self.exactPowersOfTen[token.exponent]
            return token.isNegative ? -scaled : scaled
        }
        return Self.slowValue(of: token, in: bytes)
    }

    /// ``value(of:)`` for tokens outside Clinger's fast path.
    @inline(never)
    private static func slowValue(of token: NumberToken, in bytes: UnsafeRawBufferPointer) -> Double {
        if token.mantissa == 0 { return token.isNegative ? -0.0 : 0.0 }
        if !token.isTruncated, token.exponent >= -19, token.exponent <= 19 {
            let magnitude =
                token.exponent < 0
                ? Self.quotient(token.mantissa, powerOfTen: -token.exponent)
                : Self.product(token.mantissa, powerOfTen: token.exponent)
            return token.isNegative ? -magnitude : magnitude
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[token.start..<token.end]), as: UTF8.self)
        // The grammar was checked by scanNumber, and Double(String) accepts every JSON number.
        return Double(text) ?? .nan
    }

    private static let powersOfTen: [UInt64] = (0...19).map { exponent in
        (0..<exponent).reduce(1) { power, _ in power * 10 }
    }

    /// `mantissa × 10^exponent` correctly rounded, for `exponent` in `0...19`: the product is exact in 128 bits.
    private static func product(_ mantissa: UInt64, powerOfTen exponent: Int) -> Double {
        let exact = UInt128(mantissa) * UInt128(powersOfTen[exponent])
        return rounded(exact, remainderIsZero: true, scale: 0)
    }

    /// `mantissa / 10^exponent` correctly rounded, for `exponent` in `1...19` and a non-zero mantissa.
    private static func quotient(_ mantissa: UInt64, powerOfTen exponent: Int) -> Double {
        let divisor = UInt128(powersOfTen[exponent])
        let divisorBits = 128 - divisor.leadingZeroBitCount
        let mantissaBits = 64 - mantissa.leadingZeroBitCount
        // Scale the dividend so the quotient has at least 55 bits: 53 kept, a rounding bit, and more.
        let shift = max(0, 56 + divisorBits - mantissaBits)
        let dividend = UInt128(mantissa) << shift
        let (quotient, remainder) = dividend.quotientAndRemainder(dividingBy: divisor)
        return rounded(quotient, remainderIsZero: remainder == 0, scale: -shift)
    }

    /// `value × 2^scale` rounded to 53 bits, to nearest, ties to even; `remainderIsZero` false means the exact
    /// value is slightly above `value` (a sticky bit).
    private static func rounded(_ value: UInt128, remainderIsZero: Bool, scale: Int) -> Double {
        let bits = 128 - value.leadingZeroBitCount
        guard bits > 53 else { return Double(sign: .plus, exponent: scale, significand: Double(UInt64(value))) }
        let dropped = bits - 53
        let half = UInt128(1) << (dropped - 1)
        let low = value & ((UInt128(1) << dropped) - 1)
        var kept = UInt64(value >> dropped)
        if low > half || (low == half && (!remainderIsZero || kept & 1 == 1)) { kept += 1 }
        return Double(sign: .plus, exponent: scale + dropped, significand: Double(kept))
    }

    /// Scans a number in its common form, `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]{1,6})?` with at most
    /// ``maxSignificantDigits`` digits before the exponent (leading zeros included), so the mantissa is exact and
    /// fits in 64 bits, and moves past it. Returns nil without moving for anything else, longer numbers as well
    /// as malformed ones: ``scanNumber()`` then reads the number or reports the error.
    @inline(__always)
    mutating func scanPlainNumber() -> NumberToken? {
        let count = bytes.count
        var index = offset
        let isNegative = index < count && bytes[index] == UInt8(ascii: "-")
        if isNegative { index += 1 }
        let integerStart = index
        var mantissa: UInt64 = 0
        // Wrapping arithmetic: a mantissa of more than 19 digits may wrap, but is then discarded below.
        Self.scanDigits(bytes, at: &index, into: &mantissa)
        var digitCount = index &- integerStart
        guard digitCount == 1 || (digitCount > 1 && bytes[integerStart] != UInt8(ascii: "0")) else { return nil }
        var exponent = 0
        if index < count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            Self.scanDigits(bytes, at: &index, into: &mantissa)
            let fractionDigits = index &- fractionStart
            guard fractionDigits > 0 else { return nil }
            digitCount &+= fractionDigits
            exponent = -fractionDigits
        }
        guard digitCount <= Self.maxSignificantDigits else { return nil }
        if index < count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            let exponentIsNegative = index < count && bytes[index] == UInt8(ascii: "-")
            if index < count, exponentIsNegative || bytes[index] == UInt8(ascii: "+") { index += 1 }
            let exponentStart = index
            var written = 0
            Self.scanDigits(bytes, at: &index, into: &written)
            guard index > exponentStart, index &- exponentStart <= 6 else { return nil }
            exponent += exponentIsNegative ? -written : written
        }
        let token = NumberToken(
            start: offset, end: index, isNegative: isNegative, mantissa: mantissa, exponent: exponent,
            isTruncated: false)
        offset = index
        return token
    }

    /// Moves `index` past a run of ASCII digits in `bytes`, folding them into `value` with wrapping arithmetic (the
    /// caller bounds the number of digits).
    @inline(__always)
    private static func scanDigits<Value: FixedWidthInteger>(
        _ bytes: UnsafeRawBufferPointer, at index: inout Int, into value: inout Value
    ) {
        while index < bytes.count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return }
            value = value &* 10 &+ Value(digit)
            index += 1
        }
    }

    /// Scans a number at the current offset and moves past it.
    mutating func scanNumber() throws(JSONError) -> NumberToken {
        var token = NumberToken(
            start: offset, end: offset, isNegative: false, mantissa: 0, exponent: 0, isTruncated: false)
        var significantDigits = 0
        var index = offset
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") {
            token.isNegative = true
            index += 1
        }
        guard index < bytes.count else { throw JSONError(offset: index, reason: .unexpectedEnd) }
        func addDigit(_ digit: UInt8, fractional: Bool) {
            if token.mantissa == 0, digit == 0 {
                if fractional { token.exponent -= 1 }
            } else if significantDigits < Self.maxSignificantDigits {
                token.mantissa = token.mantissa * 10 + UInt64(digit)
                significantDigits += 1
                if fractional { token.exponent -= 1 }
            } else {
                if digit != 0 { token.isTruncated = true }
                if !fractional { token.exponent += 1 }
            }
        }
        let first = bytes[index]
        if first == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, Self.isDigit(bytes[index]) {
                throw JSONError(offset: index, reason: .invalidNumber)
            }
        } else if Self.isDigit(first) {
            while index < bytes.count, Self.isDigit(bytes[index]) {
                addDigit(bytes[index] &- UInt8(ascii: "0"), fractional: false)
                index += 1
            }
        } else {
            throw JSONError(offset: index, reason: .invalidNumber)
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            try expectDigit(at: index)
            while index < bytes.count, Self.isDigit(bytes[index]) {
                addDigit(bytes[index] &- UInt8(ascii: "0"), fractional: true)
                index += 1
            }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            var exponentIsNegative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                exponentIsNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            try expectDigit(at: index)
            var exponent = 0
            while index < bytes.count, Self.isDigit(bytes[index]) {
                // Saturate: anything past 10^6 is ±infinity or ±0 whatever the mantissa.
                exponent = min(exponent * 10 + Int(bytes[index] &- UInt8(ascii: "0")), 1_000_000)
                index += 1
            }
            token.exponent += exponentIsNegative ? -exponent : exponent
        }
        token.end = index
        offset = index
        return token
    }

    private func expectDigit(at index: Int) throws(JSONError) {
        guard index < bytes.count else { throw JSONError(offset: index, reason: .unexpectedEnd) }
        guard Self.isDigit(bytes[index]) else { throw JSONError(offset: index, reason: .invalidNumber) }
    }

    @inline(__always)
    private static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }
}
