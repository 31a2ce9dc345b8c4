extension HTTPResponseHead {
    /// Why a response head could not be parsed.
    public enum ParseError: Error, Equatable, Sendable {
        /// The status line or a header line is malformed.
        case malformed
        /// The head is longer than the limit.
        case tooLarge
    }

    /// Parses a response head (status line and header fields, RFC 9112 §4) from the start of `bytes`, for
    /// clients such as the WebSocket handshake.
    /// - Parameters:
    ///   - bytes: The bytes received so far.
    ///   - limit: The longest head accepted.
    /// - Returns: The head and the number of bytes it used, or nil when more bytes are needed.
    /// - Throws: ``ParseError`` for a malformed or oversized head.
    public static func parse(_ bytes: [UInt8], limit: Int = 16 * 1024) throws(ParseError) -> (Self, Int)? {
        guard let end = Self.endOfHead(bytes) else {
            if bytes.count > limit { throw .tooLarge }
            return nil
        }
        guard end <= limit else { throw .tooLarge }
        var lines = bytes[..<end].split(separator: ASCII.lineFeed, omittingEmptySubsequences: false).map { line in
            line.last == ASCII.carriageReturn ? line.dropLast() : line
        }
        guard !lines.isEmpty else { throw .malformed }
        let statusLine = lines.removeFirst()
        // status-line = HTTP-version SP status-code SP [ reason-phrase ]
        guard statusLine.count >= 12, statusLine.starts(with: Array("HTTP/1.".utf8)),
            statusLine[statusLine.startIndex + 8] == ASCII.space
        else { throw .malformed }
        let codeBytes = statusLine[(statusLine.startIndex + 9)..<(statusLine.startIndex + 12)]
        guard codeBytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let code = Int(String(decoding: codeBytes, as: UTF8.self))
        else { throw .malformed }
        let minor = statusLine[statusLine.startIndex + 7]
        var headers = HTTPHeaders()
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: 0x3A), colon > line.startIndex else { throw .malformed }
            let name = String(decoding: line[..<colon], as: UTF8.self)
            guard name.utf8.allSatisfy(ASCII.isTokenChar) else { throw .malformed }
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingOWS()
            headers.add(name: name, value: value)
        }
        let head = HTTPResponseHead(
            status: HTTPStatus(code: code), version: minor == 0x30 ? .http10 : .http11, headers: headers)
        return (head, end + 4)
    }

    private static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == ASCII.carriageReturn && bytes[index + 1] == ASCII.lineFeed
            && bytes[index + 2] == ASCII.carriageReturn
            && bytes[index + 3] == ASCII.lineFeed
        {
            return index
        }
        return nil
    }
}

extension String {
    fileprivate func trimmingOWS() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars = scalars.dropFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
