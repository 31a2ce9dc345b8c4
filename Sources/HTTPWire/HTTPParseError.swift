/// Why a request could not be parsed. Each case maps to the response status a server should send before closing
/// the connection.
public enum HTTPParseError: Error, Equatable, Sendable {
    /// The request-line is not `method SP request-target SP HTTP-version` (RFC 9112 §3), or too many empty lines
    /// preceded it (RFC 9112 §2.2). 400.
    case invalidRequestLine
    /// The method is not a token (RFC 9110 §9.1). 400.
    case invalidMethod
    /// The request-target has an unsupported form or invalid characters (RFC 9112 §3.2). 400.
    case invalidTarget
    /// A `%` escape in the path or query is malformed, decodes to NUL, or the result is not UTF-8. 400.
    case invalidPercentEncoding
    /// The HTTP-version is malformed (RFC 9112 §2.3). 400.
    case invalidVersion
    /// The major version is not 1, e.g. `HTTP/2.0` or `HTTP/0.9`. 505.
    case unsupportedVersion
    /// `CONNECT` (authority-form, RFC 9112 §3.2.3) is not supported by this origin server. 501.
    case connectNotSupported
    /// The request-line exceeds `HTTPParserLimits.maxRequestLineBytes`. 414.
    case uriTooLong
    /// A line ended in LF without CR; bare LF is not accepted (RFC 9112 §2.2). 400.
    case bareLineFeed
    /// A CR was not followed by LF (RFC 9112 §2.2). 400.
    case bareCarriageReturn
    /// A field line starts with whitespace: obsolete line folding (RFC 9112 §5.2), or whitespace between the
    /// request-line and the first field (RFC 9112 §2.2). 400.
    case obsoleteLineFolding
    /// A field name is empty, is not a token, or the line has no colon (RFC 9110 §5.1). 400.
    case invalidHeaderName
    /// Whitespace between a field name and the colon (RFC 9112 §5.1). 400.
    case whitespaceBeforeColon
    /// A field value contains NUL or another control character (RFC 9110 §5.5). 400.
    case invalidHeaderValue
    /// The header section exceeds `HTTPParserLimits.maxHeaderBytes`. 431.
    case headersTooLarge
    /// More fields than `HTTPParserLimits.maxHeaderCount`. 431.
    case tooManyHeaders
    /// An HTTP/1.1 request without Host (RFC 9112 §3.2). 400.
    case missingHost
    /// More than one Host field, or a Host value that is not `uri-host [ ":" port ]` (RFC 9112 §3.2). 400.
    case invalidHost
    /// Content-Length is not `1*DIGIT` (RFC 9112 §6.3, rule 5). 400.
    case invalidContentLength
    /// Several Content-Length values that differ (RFC 9110 §8.6). 400.
    case conflictingContentLength
    /// Both Content-Length and Transfer-Encoding: a request smuggling vector (RFC 9112 §6.3, rule 3). 400.
    case contentLengthWithTransferEncoding
    /// Transfer-Encoding is empty, repeats `chunked`, or appears in an HTTP/1.0 request (RFC 9112 §6.1). 400.
    case invalidTransferEncoding
    /// A transfer coding other than `chunked` (RFC 9112 §6.1). 501.
    case unsupportedTransferEncoding
    /// An Expect value other than `100-continue` (RFC 9110 §10.1.1). 417.
    case unsupportedExpectation
    /// The body (declared or chunked) exceeds `HTTPParserLimits.maxBodyBytes`. 413.
    case bodyTooLarge
    /// A chunk-size line is not `1*HEXDIG [ chunk-ext ]` (RFC 9112 §7.1). 400.
    case invalidChunkSize
    /// A chunk-size line exceeds `HTTPParserLimits.maxChunkSizeLineBytes`. 400.
    case chunkSizeLineTooLong
    /// Chunk data was not followed by CRLF (RFC 9112 §7.1). 400.
    case invalidChunkTerminator
    /// The trailer section exceeds `HTTPParserLimits.maxTrailerBytes` or the field-count limit. 431.
    case trailersTooLarge

    /// The status a server should answer with.
    public var status: HTTPStatus {
        switch self {
        case .unsupportedVersion: .httpVersionNotSupported
        case .connectNotSupported, .unsupportedTransferEncoding: .notImplemented
        case .uriTooLong: .uriTooLong
        case .headersTooLarge, .tooManyHeaders, .trailersTooLarge: .requestHeaderFieldsTooLarge
        case .unsupportedExpectation: .expectationFailed
        case .bodyTooLarge: .contentTooLarge
        default: .badRequest
        }
    }

    /// A short human-readable reason, suitable for a plain-text error body or a log line.
    public var reason: String {
        switch self {
        case .invalidRequestLine: "malformed request line"
        case .invalidMethod: "invalid method"
        case .invalidTarget: "invalid request target"
        case .invalidPercentEncoding: "invalid percent-encoding"
        case .invalidVersion: "malformed HTTP version"
        case .unsupportedVersion: "HTTP version not supported"
        case .connectNotSupported: "CONNECT not supported"
        case .uriTooLong: "request line too long"
        case .bareLineFeed: "line not terminated by CRLF"
        case .bareCarriageReturn: "bare CR"
        case .obsoleteLineFolding: "obsolete line folding"
        case .invalidHeaderName: "invalid header field name"
        case .whitespaceBeforeColon: "whitespace before colon in header field"
        case .invalidHeaderValue: "invalid header field value"
        case .headersTooLarge: "header section too large"
        case .tooManyHeaders: "too many header fields"
        case .missingHost: "missing Host header"
        case .invalidHost: "invalid or repeated Host header"
        case .invalidContentLength: "invalid Content-Length"
        case .conflictingContentLength: "conflicting Content-Length values"
        case .contentLengthWithTransferEncoding: "both Content-Length and Transfer-Encoding"
        case .invalidTransferEncoding: "invalid Transfer-Encoding"
        case .unsupportedTransferEncoding: "unsupported transfer coding"
        case .unsupportedExpectation: "unsupported expectation"
        case .bodyTooLarge: "request body too large"
        case .invalidChunkSize: "invalid chunk size"
        case .chunkSizeLineTooLong: "chunk size line too long"
        case .invalidChunkTerminator: "chunk data not followed by CRLF"
        case .trailersTooLarge: "trailer section too large"
        }
    }
}
