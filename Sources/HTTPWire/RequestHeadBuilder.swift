/// Applies the message-level rules of RFC 9112/9110 to a request-line and its header fields.
enum RequestHeadBuilder {
    /// Builds the request head and its derived facts.
    ///
    /// - Parameters:
    ///   - line: The parsed request-line.
    ///   - headers: The header fields.
    ///   - limits: The parser limits (for the Content-Length check).
    /// - Returns: The request head.
    /// - Throws: The first rule violation found.
    static func build(
        line: RequestLine,
        headers: HTTPHeaders,
        limits: HTTPParserLimits
    ) throws(HTTPParseError) -> HTTPRequestHead {
        let isHTTP11 = line.version.hasHTTP11Semantics
        let host = try resolveHost(target: line.target, headers: headers, isHTTP11: isHTTP11)
        let framing = try bodyFraming(headers: headers, isHTTP11: isHTTP11, limits: limits)
        let expectsContinue = try expectsContinue(headers: headers) && isHTTP11
        // RFC 9112 §9.3: persistence defaults differ between 1.1 and 1.0.
        let closeRequested = headers.contains(token: "close", in: "Connection")
        let keepAlive: Bool
        if isHTTP11 {
            keepAlive = !closeRequested
        } else {
            keepAlive = !closeRequested && headers.contains(token: "keep-alive", in: "Connection")
        }
        // RFC 9110 §7.8: Upgrade is only meaningful when listed in Connection; ignored in HTTP/1.0.
        let upgradeValue = headers["Upgrade"] ?? ""
        let isUpgrade = isHTTP11 && !upgradeValue.isEmpty && headers.contains(token: "upgrade", in: "Connection")
        return HTTPRequestHead(
            method: line.method,
            target: line.target,
            version: line.version,
            headers: headers,
            host: host,
            keepAlive: keepAlive,
            expectsContinue: expectsContinue,
            isUpgrade: isUpgrade,
            bodyFraming: framing
        )
    }

    /// RFC 9112 §3.2: exactly one valid Host in HTTP/1.1; at most one in HTTP/1.0. An absolute-form authority takes
    /// precedence over the Host value (RFC 9112 §3.2.2).
    private static func resolveHost(
        target: HTTPRequestTarget,
        headers: HTTPHeaders,
        isHTTP11: Bool
    ) throws(HTTPParseError) -> String? {
        let hosts = headers.values(for: "Host")
        guard hosts.count <= 1 else { throw .invalidHost }
        if let value = hosts.first {
            guard value.utf8.allSatisfy(ASCII.isHostChar) else { throw .invalidHost }
        } else if isHTTP11 {
            throw .missingHost
        }
        return target.authority ?? hosts.first
    }

    /// RFC 9112 §6.1–6.3: determines the body length and rejects ambiguous framing.
    private static func bodyFraming(
        headers: HTTPHeaders,
        isHTTP11: Bool,
        limits: HTTPParserLimits
    ) throws(HTTPParseError) -> HTTPRequestHead.BodyFraming {
        let transferEncodings = headers.values(for: "Transfer-Encoding")
        let contentLengths = headers.values(for: "Content-Length")
        if !transferEncodings.isEmpty {
            // RFC 9112 §6.3 rule 3: both present is a smuggling attempt; reject rather than guess.
            guard contentLengths.isEmpty else { throw .contentLengthWithTransferEncoding }
            // RFC 9112 §6.1: Transfer-Encoding in HTTP/1.0 means the framing is faulty.
            guard isHTTP11 else { throw .invalidTransferEncoding }
            let codings = transferEncodings.flatMap(ASCII.listElements)
            guard !codings.isEmpty else { throw .invalidTransferEncoding }
            // RFC 9112 §6.1: an unknown transfer coding is answered with 501.
            for coding in codings where !ASCII.equalsIgnoringCase(coding, "chunked".utf8) {
                throw .unsupportedTransferEncoding
            }
            // RFC 9112 §6.1: chunked MUST NOT be applied more than once.
            guard codings.count == 1 else { throw .invalidTransferEncoding }
            return .chunked
        }
        guard !contentLengths.isEmpty else { return .noBody }
        // RFC 9110 §8.6: a list of identical values may be accepted; differing values are an error.
        var length: Int?
        for value in contentLengths {
            for element in value.utf8.split(separator: ASCII.comma, omittingEmptySubsequences: false) {
                let parsed: Int
                switch ASCII.parseDecimal(ASCII.trimmingWhitespace(element)) {
                case .value(let value): parsed = value
                case .overflow: throw .bodyTooLarge
                case .invalid: throw .invalidContentLength
                }
                if let length, length != parsed { throw .conflictingContentLength }
                length = parsed
            }
        }
        guard let length else { throw .invalidContentLength }
        guard length <= limits.maxBodySize else { throw .bodyTooLarge }
        return .contentLength(length)
    }

    /// RFC 9110 §10.1.1: only `100-continue` is understood; anything else gets 417.
    private static func expectsContinue(headers: HTTPHeaders) throws(HTTPParseError) -> Bool {
        var expectsContinue = false
        for value in headers.values(for: "Expect") {
            for element in ASCII.listElements(value) {
                guard ASCII.equalsIgnoringCase(element, "100-continue".utf8) else { throw .unsupportedExpectation }
                expectsContinue = true
            }
        }
        return expectsContinue
    }
}
