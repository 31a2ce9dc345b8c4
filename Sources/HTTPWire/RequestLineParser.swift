/// The three components of a request-line.
struct RequestLine: Sendable {
    var method: HTTPMethod
    var target: HTTPRequestTarget
    var version: HTTPVersion
}

/// Parses `request-line = method SP request-target SP HTTP-version` (RFC 9112 §3).
enum RequestLineParser {
    /// Parses one request-line (without CRLF).
    ///
    /// The version is checked before the target so that e.g. the HTTP/2 preface `PRI * HTTP/2.0` yields 505.
    /// - Parameter line: The line bytes.
    /// - Returns: The parsed request-line.
    /// - Throws: The matching `HTTPParseError`.
    static func parse(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> RequestLine {
        guard let firstSpace = line.firstIndex(of: ASCII.space),
            let lastSpace = line.lastIndex(of: ASCII.space),
            firstSpace != lastSpace
        else {
            throw .invalidRequestLine
        }
        let methodBytes = line[line.startIndex..<firstSpace]
        guard !methodBytes.isEmpty, methodBytes.allSatisfy(ASCII.isTokenChar) else { throw .invalidMethod }
        let version = try HTTPVersion.parse(line[(lastSpace + 1)...])
        let method = HTTPMethod(String(decoding: methodBytes, as: UTF8.self))
        // RFC 9112 §3.2.3: authority-form is only for CONNECT, which an origin server does not implement.
        guard method != .connect else { throw .connectNotSupported }
        // Exactly one SP separates the components; any other SP makes the target invalid.
        let target = try HTTPRequestTarget(bytes: line[(firstSpace + 1)..<lastSpace], method: method)
        return RequestLine(method: method, target: target, version: version)
    }
}
