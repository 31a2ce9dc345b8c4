/// Parser for `Sec-WebSocket-Extensions` values (RFC 6455 §9.1):
///
/// ```
/// extension-list  = 1#extension
/// extension       = extension-token *( ";" extension-param )
/// extension-param = token [ "=" (token | quoted-string) ]
/// ```
///
/// A quoted value must be a token after unescaping (RFC 6455 §9.1). Elements are separated by commas outside
/// quoted strings; a malformed element does not spoil its neighbours.
enum WebSocketExtensionHeader {
    /// One parsed extension element.
    struct Element: Equatable, Sendable {
        /// The extension token as written.
        var name: String
        /// The parameters in order; `value` is `nil` for a bare parameter.
        var parameters: [(name: String, value: String?)]

        static func == (lhs: Element, rhs: Element) -> Bool {
            lhs.name == rhs.name
                && lhs.parameters.elementsEqual(rhs.parameters) { $0.name == $1.name && $0.value == $1.value }
        }
    }

    /// Parses every element of every field value, in order; `nil` entries mark malformed elements.
    ///
    /// - Parameter values: The field values (a header may be repeated).
    /// - Returns: One entry per non-empty list element.
    static func parse(_ values: [String]) -> [Element?] {
        values.flatMap { value in
            split(Array(value.utf8), at: ASCII.comma).compactMap { element -> Element?? in
                let trimmed = ASCII.trimmingWhitespace(element)
                return trimmed.isEmpty ? nil : .some(parseElement(Array(trimmed)))
            }
        }
    }

    private static func parseElement(_ bytes: [UInt8]) -> Element? {
        let parts = split(bytes, at: ASCII.semicolon).map { Array(ASCII.trimmingWhitespace($0)) }
        guard let nameBytes = parts.first, isToken(nameBytes) else { return nil }
        var parameters: [(name: String, value: String?)] = []
        for part in parts.dropFirst() {
            guard let parameter = parseParameter(part) else { return nil }
            parameters.append(parameter)
        }
        return Element(name: String(decoding: nameBytes, as: UTF8.self), parameters: parameters)
    }

    private static func parseParameter(_ bytes: [UInt8]) -> (name: String, value: String?)? {
        guard let equals = bytes.firstIndex(of: ASCII.equals) else {
            return isToken(bytes) ? (String(decoding: bytes, as: UTF8.self), nil) : nil
        }
        let name = Array(ASCII.trimmingWhitespace(bytes[..<equals]))
        var value = Array(ASCII.trimmingWhitespace(bytes[(equals + 1)...]))
        guard isToken(name) else { return nil }
        if value.first == 0x22 {
            guard let unquoted = unquote(value) else { return nil }
            value = unquoted
        }
        guard isToken(value) else { return nil }
        return (String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }

    /// Removes the quotes and backslash escapes of a `quoted-string` (RFC 9110 §5.6.4).
    private static func unquote(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count >= 2, bytes.first == 0x22, bytes.last == 0x22 else { return nil }
        var result: [UInt8] = []
        var escaped = false
        for byte in bytes.dropFirst().dropLast() {
            if escaped {
                result.append(byte)
                escaped = false
            } else if byte == 0x5C {
                escaped = true
            } else if byte == 0x22 {
                return nil
            } else {
                result.append(byte)
            }
        }
        return escaped ? nil : result
    }

    private static func isToken(_ bytes: [UInt8]) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy(ASCII.isTokenChar)
    }

    /// Splits at `separator` bytes that are outside quoted strings.
    private static func split(_ bytes: [UInt8], at separator: UInt8) -> [ArraySlice<UInt8>] {
        var pieces: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var inQuotes = false
        var escaped = false
        for index in bytes.indices {
            let byte = bytes[index]
            if escaped {
                escaped = false
            } else if inQuotes && byte == 0x5C {
                escaped = true
            } else if byte == 0x22 {
                inQuotes.toggle()
            } else if !inQuotes && byte == separator {
                pieces.append(bytes[start..<index])
                start = index + 1
            }
        }
        pieces.append(bytes[start...])
        return pieces
    }
}
