extension Array where Element == UInt8 {
    /// Appends the ASCII decimal digits of a non-negative integer, left-padded with zeros to `width` digits (more
    /// when the number needs them): `appendDecimal(7, width: 2)` appends `07`.
    /// - Parameters:
    ///   - value: The number; must not be negative.
    ///   - width: The least number of digits.
    public mutating func appendDecimal(_ value: Int, width: Int = 1) {
        precondition(value >= 0, "only non-negative numbers are written")
        var digits = 1
        var divisor = 1
        while value / divisor >= 10 {
            divisor *= 10
            digits += 1
        }
        for _ in digits..<Swift.max(width, digits) { append(0x30) }
        var rest = value
        while divisor > 0 {
            append(0x30 + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}
