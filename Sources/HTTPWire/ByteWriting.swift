/// Small helpers for appending ASCII text and numbers to a byte buffer without going through `String`.
enum ByteWriting {
    static let crlf: [UInt8] = [ASCII.carriageReturn, ASCII.lineFeed]
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends the lowercase hexadecimal form of a non-negative integer.
    static func appendHex(_ value: Int, to buffer: inout [UInt8]) {
        appendDigits(of: value, radix: 16, to: &buffer)
    }

    private static func appendDigits(of value: Int, radix: Int, to buffer: inout [UInt8]) {
        precondition(value >= 0, "only non-negative numbers are written")
        var scratch: [UInt8] = []
        var rest = value
        repeat {
            scratch.append(hexDigits[rest % radix])
            rest /= radix
        } while rest > 0
        buffer.append(contentsOf: scratch.reversed())
    }

    /// Appends `name: value CRLF`.
    static func appendField(name: String, value: String, to buffer: inout [UInt8]) {
        appendUTF8(of: name, to: &buffer)
        buffer.append(ASCII.colon)
        buffer.append(ASCII.space)
        appendUTF8(of: value, to: &buffer)
        buffer.append(ASCII.carriageReturn)
        buffer.append(ASCII.lineFeed)
    }

    /// Appends the UTF-8 bytes of `string`, copied at once from its contiguous bytes (every native string): appending
    /// a `String.UTF8View` goes through the string's index checks.
    static func appendUTF8(of string: String, to buffer: inout [UInt8]) {
        let appended: Void? = string.utf8.withContiguousStorageIfAvailable { buffer.append(contentsOf: $0) }
        if appended == nil { buffer.append(contentsOf: string.utf8) }
    }

    /// Throws unless every field can be written without enabling response splitting (RFC 9110 §5.1, §5.5).
    static func validate(_ headers: HTTPHeaders) throws(HTTPWriteError) {
        for field in headers {
            try validateField(name: field.name, value: field.value)
        }
    }

    /// Throws unless `name` is a token and `value` contains no CR, LF, NUL or other control characters.
    static func validateField(name: String, value: String) throws(HTTPWriteError) {
        guard !name.isEmpty, ASCII.isTokenOrEmpty(name) else { throw .invalidHeaderName(name) }
        guard ASCII.isFieldValue(value) else { throw .invalidHeaderValue(name: name) }
    }
}
