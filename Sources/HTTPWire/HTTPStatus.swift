/// A response status code and reason phrase (RFC 9110 §15).
public struct HTTPStatus: Sendable, Hashable, CustomStringConvertible {
    /// The three-digit status code.
    public var code: Int
    /// The reason phrase written on the status line (RFC 9112 §4); informational only.
    public var reasonPhrase: String

    /// Creates a status with an explicit reason phrase.
    ///
    /// - Parameters:
    ///   - code: The status code, 100...999.
    ///   - reasonPhrase: The reason phrase; the writer rejects CR, LF and other control characters.
    public init(code: Int, reasonPhrase: String) {
        self.code = code
        self.reasonPhrase = reasonPhrase
    }

    /// Creates a status with the standard reason phrase for `code` (empty when the code is not known).
    ///
    /// - Parameter code: The status code.
    public init(code: Int) {
        self.init(code: code, reasonPhrase: Self.standardReasonPhrase(for: code) ?? "")
    }

    /// `"200 OK"` style description.
    public var description: String { "\(code) \(reasonPhrase)" }

    /// Whether a response with this status may carry content: not 1xx, 204 or 304 (RFC 9110 §6.4.1).
    public var permitsContent: Bool {
        !(100...199).contains(code) && code != 204 && code != 304
    }

    /// Whether Content-Length may be sent: not 1xx or 204 (RFC 9110 §8.6).
    var permitsContentLength: Bool {
        !(100...199).contains(code) && code != 204
    }

    /// The registered reason phrase for a status code.
    ///
    /// - Parameter code: The status code.
    /// - Returns: The phrase, or `nil` for codes not listed here.
    public static func standardReasonPhrase(for code: Int) -> String? {
        switch code {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 416: "Range Not Satisfiable"
        case 417: "Expectation Failed"
        case 421: "Misdirected Request"
        case 422: "Unprocessable Content"
        case 426: "Upgrade Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: nil
        }
    }

    /// 100 Continue (RFC 9110 §15.2.1).
    public static let `continue` = HTTPStatus(code: 100, reasonPhrase: "Continue")
    /// 101 Switching Protocols (RFC 9110 §15.2.2).
    public static let switchingProtocols = HTTPStatus(code: 101, reasonPhrase: "Switching Protocols")
    /// 200 OK (RFC 9110 §15.3.1).
    public static let ok = HTTPStatus(code: 200, reasonPhrase: "OK")
    /// 201 Created (RFC 9110 §15.3.2).
    public static let created = HTTPStatus(code: 201, reasonPhrase: "Created")
    /// 202 Accepted (RFC 9110 §15.3.3).
    public static let accepted = HTTPStatus(code: 202, reasonPhrase: "Accepted")
    /// 204 No Content (RFC 9110 §15.3.5).
    public static let noContent = HTTPStatus(code: 204, reasonPhrase: "No Content")
    /// 206 Partial Content (RFC 9110 §15.3.7).
    public static let partialContent = HTTPStatus(code: 206, reasonPhrase: "Partial Content")
    /// 301 Moved Permanently (RFC 9110 §15.4.2).
    public static let movedPermanently = HTTPStatus(code: 301, reasonPhrase: "Moved Permanently")
    /// 302 Found (RFC 9110 §15.4.3).
    public static let found = HTTPStatus(code: 302, reasonPhrase: "Found")
    /// 303 See Other (RFC 9110 §15.4.4).
    public static let seeOther = HTTPStatus(code: 303, reasonPhrase: "See Other")
    /// 304 Not Modified (RFC 9110 §15.4.5).
    public static let notModified = HTTPStatus(code: 304, reasonPhrase: "Not Modified")
    /// 307 Temporary Redirect (RFC 9110 §15.4.8).
    public static let temporaryRedirect = HTTPStatus(code: 307, reasonPhrase: "Temporary Redirect")
    /// 308 Permanent Redirect (RFC 9110 §15.4.9).
    public static let permanentRedirect = HTTPStatus(code: 308, reasonPhrase: "Permanent Redirect")
    /// 400 Bad Request (RFC 9110 §15.5.1).
    public static let badRequest = HTTPStatus(code: 400, reasonPhrase: "Bad Request")
    /// 401 Unauthorized (RFC 9110 §15.5.2).
    public static let unauthorized = HTTPStatus(code: 401, reasonPhrase: "Unauthorized")
    /// 403 Forbidden (RFC 9110 §15.5.4).
    public static let forbidden = HTTPStatus(code: 403, reasonPhrase: "Forbidden")
    /// 404 Not Found (RFC 9110 §15.5.5).
    public static let notFound = HTTPStatus(code: 404, reasonPhrase: "Not Found")
    /// 405 Method Not Allowed (RFC 9110 §15.5.6).
    public static let methodNotAllowed = HTTPStatus(code: 405, reasonPhrase: "Method Not Allowed")
    /// 406 Not Acceptable (RFC 9110 §15.5.7).
    public static let notAcceptable = HTTPStatus(code: 406, reasonPhrase: "Not Acceptable")
    /// 408 Request Timeout (RFC 9110 §15.5.9).
    public static let requestTimeout = HTTPStatus(code: 408, reasonPhrase: "Request Timeout")
    /// 409 Conflict (RFC 9110 §15.5.10).
    public static let conflict = HTTPStatus(code: 409, reasonPhrase: "Conflict")
    /// 411 Length Required (RFC 9110 §15.5.12).
    public static let lengthRequired = HTTPStatus(code: 411, reasonPhrase: "Length Required")
    /// 412 Precondition Failed (RFC 9110 §15.5.13).
    public static let preconditionFailed = HTTPStatus(code: 412, reasonPhrase: "Precondition Failed")
    /// 413 Content Too Large (RFC 9110 §15.5.14).
    public static let contentTooLarge = HTTPStatus(code: 413, reasonPhrase: "Content Too Large")
    /// 414 URI Too Long (RFC 9110 §15.5.15).
    public static let uriTooLong = HTTPStatus(code: 414, reasonPhrase: "URI Too Long")
    /// 415 Unsupported Media Type (RFC 9110 §15.5.16).
    public static let unsupportedMediaType = HTTPStatus(code: 415, reasonPhrase: "Unsupported Media Type")
    /// 416 Range Not Satisfiable (RFC 9110 §15.5.17).
    public static let rangeNotSatisfiable = HTTPStatus(code: 416, reasonPhrase: "Range Not Satisfiable")
    /// 417 Expectation Failed (RFC 9110 §15.5.18).
    public static let expectationFailed = HTTPStatus(code: 417, reasonPhrase: "Expectation Failed")
    /// 421 Misdirected Request (RFC 9110 §15.5.20): the request names an authority this server does not answer for.
    public static let misdirectedRequest = HTTPStatus(code: 421, reasonPhrase: "Misdirected Request")
    /// 422 Unprocessable Content (RFC 9110 §15.5.21): well-formed content the server cannot act on.
    public static let unprocessableContent = HTTPStatus(code: 422, reasonPhrase: "Unprocessable Content")
    /// 426 Upgrade Required (RFC 9110 §15.5.22).
    public static let upgradeRequired = HTTPStatus(code: 426, reasonPhrase: "Upgrade Required")
    /// 429 Too Many Requests (RFC 6585 §4).
    public static let tooManyRequests = HTTPStatus(code: 429, reasonPhrase: "Too Many Requests")
    /// 431 Request Header Fields Too Large (RFC 6585 §5).
    public static let requestHeaderFieldsTooLarge = HTTPStatus(
        code: 431, reasonPhrase: "Request Header Fields Too Large")
    /// 500 Internal Server Error (RFC 9110 §15.6.1).
    public static let internalServerError = HTTPStatus(code: 500, reasonPhrase: "Internal Server Error")
    /// 501 Not Implemented (RFC 9110 §15.6.2).
    public static let notImplemented = HTTPStatus(code: 501, reasonPhrase: "Not Implemented")
    /// 502 Bad Gateway (RFC 9110 §15.6.3).
    public static let badGateway = HTTPStatus(code: 502, reasonPhrase: "Bad Gateway")
    /// 503 Service Unavailable (RFC 9110 §15.6.4).
    public static let serviceUnavailable = HTTPStatus(code: 503, reasonPhrase: "Service Unavailable")
    /// 504 Gateway Timeout (RFC 9110 §15.6.5).
    public static let gatewayTimeout = HTTPStatus(code: 504, reasonPhrase: "Gateway Timeout")
    /// 505 HTTP Version Not Supported (RFC 9110 §15.6.6).
    public static let httpVersionNotSupported = HTTPStatus(code: 505, reasonPhrase: "HTTP Version Not Supported")
}
