import PortableBasics

/// Appending JSON text (RFC 8259) to a byte buffer without going through `String` for structure and numbers;
/// strings are Basics' `appendJSONString(_:)`.
extension [UInt8] {
    /// Appends ASCII text as is: structure and member names known at compile time, e.g. `{"type":"event","t":`.
    @inline(__always)
    public mutating func appendLiteral(_ text: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

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
