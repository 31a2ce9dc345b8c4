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
        let fields = MessageFields(headers)
        let host = try resolveHost(target: line.target, fields: fields, isHTTP11: isHTTP11)
        let framing = try bodyFraming(fields: fields, isHTTP11: isHTTP11, limits: limits)
        let expectsContinue = try expectsContinue(fields.expect) && isHTTP11
        // RFC 9112 §9.3: persistence defaults differ between 1.1 and 1.0.
        let closeRequested = fields.connectionContains("close")
        let keepAlive: Bool
        if isHTTP11 {
            keepAlive = !closeRequested
        } else {
            keepAlive = !closeRequested && fields.connectionContains("keep-alive")
        }
        // RFC 9110 §7.8: Upgrade is only meaningful when listed in Connection; ignored in HTTP/1.0.
        let upgradeValue = fields.upgrade ?? ""
        let isUpgrade = isHTTP11 && !upgradeValue.isEmpty && fields.connectionContains("upgrade")
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

    /// The fields the message rules read, found in one pass over the headers (a request carries a dozen fields or
    /// more, and each rule would otherwise scan them all); names compared case-insensitively, length first.
    private struct MessageFields {
        var hostCount = 0
        var host: String?
        var transferEncodings: [String] = []
        var contentLengths: [String] = []
        var connection: [String] = []
        var upgrade: String?
        var expect: [String] = []

        init(_ headers: HTTPHeaders) {
            for (name, value) in headers {
                let bytes = name.utf8
                switch bytes.count {
                case 4 where ASCII.equalsIgnoringCase(bytes, "Host".utf8):
                    hostCount += 1
                    if host == nil { host = value }
                case 6 where ASCII.equalsIgnoringCase(bytes, "Expect".utf8):
                    expect.append(value)
                case 7 where ASCII.equalsIgnoringCase(bytes, "Upgrade".utf8):
                    if upgrade == nil { upgrade = value }
                case 10 where ASCII.equalsIgnoringCase(bytes, "Connection".utf8):
                    connection.append(value)
                case 14 where ASCII.equalsIgnoringCase(bytes, "Content-Length".utf8):
                    contentLengths.append(value)
                case 17 where ASCII.equalsIgnoringCase(bytes, "Transfer-Encoding".utf8):
                    transferEncodings.append(value)
                default:
                    continue
                }
            }
        }

        /// Whether a `Connection` field lists `token` (case-insensitive).
        func connectionContains(_ token: String) -> Bool {
            connection.contains { value in
                ASCII.listElements(value).contains { ASCII.equalsIgnoringCase($0, token.utf8) }
            }
        }
    }

    /// RFC 9112 §3.2: exactly one valid Host in HTTP/1.1; at most one in HTTP/1.0. An absolute-form authority takes
    /// precedence over the Host value (RFC 9112 §3.2.2).
    private static func resolveHost(
        target: HTTPRequestTarget,
        fields: MessageFields,
        isHTTP11: Bool
    ) throws(HTTPParseError) -> String? {
        guard fields.hostCount <= 1 else { throw .invalidHost }
        if let value = fields.host {
            guard ASCII.all(value, ASCII.isHostChar) else { throw .invalidHost }
        } else if isHTTP11 {
            throw .missingHost
        }
        return target.authority ?? fields.host
    }

    /// RFC 9112 §6.1–6.3: determines the body length and rejects ambiguous framing.
    private static func bodyFraming(
        fields: MessageFields,
        isHTTP11: Bool,
        limits: HTTPParserLimits
    ) throws(HTTPParseError) -> HTTPRequestHead.BodyFraming {
        let transferEncodings = fields.transferEncodings
        let contentLengths = fields.contentLengths
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
        guard length <= limits.maxBodyBytes else { throw .bodyTooLarge }
        return .contentLength(length)
    }

    /// RFC 9110 §10.1.1: only `100-continue` is understood; anything else gets 417.
    private static func expectsContinue(_ values: [String]) throws(HTTPParseError) -> Bool {
        var expectsContinue = false
        for value in values {
            for element in ASCII.listElements(value) {
                guard ASCII.equalsIgnoringCase(element, "100-continue".utf8) else { throw .unsupportedExpectation }
                expectsContinue = true
            }
        }
        return expectsContinue
    }
}
