/// A parsed request head: request-line, header fields and the facts derived from them.
public struct HTTPRequestHead: Sendable, Equatable {
    /// How the request body is delimited (RFC 9112 §6.3).
    public enum BodyFraming: Sendable, Equatable {
        /// No Content-Length and no Transfer-Encoding: the request has no body (RFC 9112 §6.3, rule 7).
        case noBody
        /// A body of exactly this many bytes.
        case contentLength(Int)
        /// A chunked body (RFC 9112 §7.1).
        case chunked
    }

    /// The request method.
    public var method: HTTPMethod
    /// The parsed request-target.
    public var target: HTTPRequestTarget
    /// The version as received (`HTTP/1.0` or `HTTP/1.x`; 1.x with x > 1 is treated as 1.1).
    public var version: HTTPVersion
    /// The header fields in received order.
    public var headers: HTTPHeaders
    /// The authority of an absolute-form target, else the Host field value, else `nil` (HTTP/1.0 only).
    public var host: String?
    /// Whether the connection may be reused after this request: HTTP/1.1 unless `Connection: close`; HTTP/1.0 only
    /// with `Connection: keep-alive` (RFC 9112 §9.3).
    public var keepAlive: Bool
    /// Whether the client sent `Expect: 100-continue` on an HTTP/1.1 request (ignored for HTTP/1.0,
    /// RFC 9110 §10.1.1).
    public var expectsContinue: Bool
    /// Whether this is an HTTP/1.1 upgrade request: Connection contains `upgrade` and Upgrade is present
    /// (RFC 9110 §7.8).
    public var isUpgrade: Bool
    /// How the body is delimited.
    public var bodyFraming: BodyFraming

    /// Creates a request head.
    ///
    /// - Parameters:
    ///   - method: The method.
    ///   - target: The request-target.
    ///   - version: The version.
    ///   - headers: The header fields.
    ///   - host: The effective host.
    ///   - keepAlive: Whether the connection persists.
    ///   - expectsContinue: Whether a 100 (Continue) is expected.
    ///   - isUpgrade: Whether a protocol upgrade is requested.
    ///   - bodyFraming: How the body is delimited.
    public init(
        method: HTTPMethod,
        target: HTTPRequestTarget,
        version: HTTPVersion,
        headers: HTTPHeaders,
        host: String?,
        keepAlive: Bool,
        expectsContinue: Bool,
        isUpgrade: Bool,
        bodyFraming: BodyFraming
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.host = host
        self.keepAlive = keepAlive
        self.expectsContinue = expectsContinue
        self.isUpgrade = isUpgrade
        self.bodyFraming = bodyFraming
    }

    /// The percent-decoded path, shorthand for `target.path`.
    public var path: String { target.path }

    /// The decoded query pairs, shorthand for `target.queryItems`.
    public var queryItems: [HTTPQueryItem] { target.queryItems }

    /// The declared Content-Length, or `nil` for chunked or bodiless requests.
    public var contentLength: Int? {
        if case .contentLength(let length) = bodyFraming { return length }
        return nil
    }
}
