/// Appending JSON text (RFC 8259) to a byte buffer without going through `String` for structure and numbers.
extension [UInt8] {
    /// Appends ASCII text as is: structure and member names known at compile time, e.g. `{"type":"event","t":`.
    @inline(__always)
    public mutating func appendLiteral(_ text: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends a quoted string, escaping `"`, `\` and the control characters U+0000…U+001F (RFC 8259 §7).
    /// Other characters, ASCII or not, are written as their UTF-8 bytes.
    public mutating func appendJSONString(_ text: String) {
        append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): appendLiteral(#"\""#)
            case UInt8(ascii: "\\"): appendLiteral(#"\\"#)
            case 0x0A: appendLiteral(#"\n"#)
            case 0x0D: appendLiteral(#"\r"#)
            case 0x09: appendLiteral(#"\t"#)
            case 0x08: appendLiteral(#"\b"#)
            case 0x0C: appendLiteral(#"\f"#)
            case ..<0x20:
                appendLiteral(#"\u00"#)
                append(Self.hexDigits[Int(byte >> 4)])
                append(Self.hexDigits[Int(byte & 0x0F)])
            default: append(byte)
            }
        }
        append(UInt8(ascii: "\""))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends a number in the shortest form that reads back as the same `Double` (`128.0`, `0.1`, `1e-05`),
    /// or `null` for nil, infinities and NaN, which JSON cannot carry.
    public mutating func appendJSONNumber(_ value: Double?) {
        guard let value, value.isFinite else {
            appendLiteral("null")
            return
        }
        // Swift's description is the shortest round-trip form and always valid JSON for finite values. Written
        // through a stream, its digits come straight from the formatter's stack buffer: `description` would
        // allocate a String for every number longer than 15 characters (most measured angles).
        var sink = ByteSink()
        swap(&sink.bytes, &self)
        value.write(to: &sink)
        swap(&sink.bytes, &self)
    }

    /// Appends an integer in decimal.
    public mutating func appendJSONInteger(_ value: Int) {
        if value < 0 { append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var divisor: UInt = 1
        while magnitude / divisor >= 10 { divisor *= 10 }
        while divisor > 0 {
            append(UInt8(ascii: "0") + UInt8(magnitude / divisor))
            magnitude %= divisor
            divisor /= 10
        }
    }

    /// Appends `true` or `false`.
    public mutating func appendJSONBool(_ value: Bool) {
        if value { appendLiteral("true") } else { appendLiteral("false") }
    }

    /// Appends an array of raw values, e.g. `["rightWrist","leftWrist"]`.
    public mutating func appendJSONStrings<Values: Sequence>(_ values: Values)
    where Values.Element: RawRepresentable, Values.Element.RawValue == String {
        append(UInt8(ascii: "["))
        var first = true
        for value in values {
            if !first { append(UInt8(ascii: ",")) }
            first = false
            appendJSONString(value.rawValue)
        }
        append(UInt8(ascii: "]"))
    }
}

/// A text stream into a byte buffer: the standard library writes numbers to it as ASCII bytes, without a `String`.
private struct ByteSink: TextOutputStream {
    var bytes: [UInt8] = []

    mutating func write(_ string: String) { bytes.append(contentsOf: string.utf8) }

    /// The standard library's customisation point for ASCII output (numbers use it).
    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) { bytes.append(contentsOf: buffer) }
}
