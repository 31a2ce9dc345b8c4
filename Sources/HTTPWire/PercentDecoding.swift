/// Percent-decoding of URI components (RFC 3986 §2.1).
enum PercentDecoding {
    /// Decodes `%XX` escapes (and optionally `+` as space) and validates the result as UTF-8.
    ///
    /// - Parameters:
    ///   - bytes: The raw component bytes.
    ///   - plusAsSpace: Whether `+` decodes to a space (`application/x-www-form-urlencoded` queries).
    /// - Returns: The decoded string.
    /// - Throws: `HTTPParseError.invalidPercentEncoding` for malformed escapes, `%00`, or invalid UTF-8.
    static func decode(_ bytes: ArraySlice<UInt8>, plusAsSpace: Bool) throws(HTTPParseError) -> String {
        let needsDecoding = bytes.contains { $0 == ASCII.percent || (plusAsSpace && $0 == ASCII.plus) }
        guard needsDecoding else {
            return String(decoding: bytes, as: UTF8.self)
        }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == ASCII.percent {
                guard index + 2 < bytes.endIndex,
                    let high = ASCII.hexValue(bytes[index + 1]),
                    let low = ASCII.hexValue(bytes[index + 2])
                else {
                    throw .invalidPercentEncoding
                }
                let decoded = high << 4 | low
                // A decoded NUL is never meaningful in a path or query and is a classic truncation attack.
                guard decoded != 0 else { throw .invalidPercentEncoding }
                output.append(decoded)
                index += 3
            } else {
                output.append(plusAsSpace && byte == ASCII.plus ? ASCII.space : byte)
                index += 1
            }
        }
        guard let string = String(validating: output, as: UTF8.self) else {
            throw .invalidPercentEncoding
        }
        return string
    }
}
