/// Parses `field-line = field-name ":" OWS field-value OWS` (RFC 9112 §5).
enum FieldLineParser {
    /// Parses one non-empty field line (without CRLF).
    ///
    /// - Parameter line: The line bytes; never contains CR or LF (the line scanner guarantees it).
    /// - Returns: The name as written and the OWS-trimmed value.
    /// - Throws: `.obsoleteLineFolding`, `.whitespaceBeforeColon`, `.invalidHeaderName` or `.invalidHeaderValue`.
    static func parse(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> (name: String, value: String) {
        guard let first = line.first else { throw .invalidHeaderName }
        // RFC 9112 §5.2: obs-fold is rejected; RFC 9112 §2.2: so is whitespace before the first field.
        guard !ASCII.isWhitespace(first) else { throw .obsoleteLineFolding }
        var index = line.startIndex
        while index < line.endIndex, ASCII.isTokenChar(line[index]) {
            index += 1
        }
        let nameEnd = index
        guard index < line.endIndex, nameEnd > line.startIndex else { throw .invalidHeaderName }
        if line[index] != ASCII.colon {
            // RFC 9112 §5.1: whitespace between field name and colon MUST be rejected with 400.
            while index < line.endIndex, ASCII.isWhitespace(line[index]) {
                index += 1
            }
            if index < line.endIndex, line[index] == ASCII.colon, index > nameEnd {
                throw .whitespaceBeforeColon
            }
            throw .invalidHeaderName
        }
        let value = ASCII.trimmingWhitespace(line[(index + 1)...])
        // RFC 9110 §5.5: CR, LF, NUL (and, strictly, other CTLs) are invalid in field values.
        guard value.allSatisfy(ASCII.isFieldValueChar) else { throw .invalidHeaderValue }
        return (
            String(decoding: line[line.startIndex..<nameEnd], as: UTF8.self), String(decoding: value, as: UTF8.self)
        )
    }
}
