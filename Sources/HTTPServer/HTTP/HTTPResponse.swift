public import HTTPWire

/// What a handler answers.
public struct HTTPResponse: Sendable {
    /// The body of a response.
    public enum Body: Sendable {
        /// No body.
        case empty
        /// A body known in full, sent with `Content-Length`.
        case bytes([UInt8])
        /// A body produced piece by piece, sent chunked (RFC 9112 §7.1).
        case stream(AsyncStream<[UInt8]>)
    }

    /// The status.
    public var status: HTTPStatus
    /// Headers besides `Content-Length`, `Transfer-Encoding`, `Date` and `Connection`, which the server sets.
    public var headers: HTTPHeaders
    /// The body.
    public var body: Body
    /// For `101 Switching Protocols`: who takes over the connection once the response is written.
    public var upgrade: (@Sendable (UpgradedConnection) -> Void)?

    /// Creates a response.
    /// - Parameters:
    ///   - status: The status.
    ///   - headers: Extra headers.
    ///   - body: The body.
    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), body: Body = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response with a body and its content type.
    /// - Parameters:
    ///   - status: The status.
    ///   - contentType: The `Content-Type`.
    ///   - bytes: The body.
    public init(status: HTTPStatus = .ok, contentType: String, bytes: [UInt8]) {
        // Room for the fields middleware adds to most answers (security headers, `Cache-Control`), in one allocation.
        var headers = HTTPHeaders(minimumCapacity: Self.typicalHeaderCount)
        headers.add(name: "Content-Type", value: contentType)
        self.init(status: status, headers: headers, body: .bytes(bytes))
    }

    /// The fields an answer made here has room for before it grows.
    static let typicalHeaderCount = 6

    /// A JSON response from already-encoded JSON text.
    /// - Parameters:
    ///   - text: The JSON.
    ///   - status: The status.
    public static func json(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", bytes: Array(text.utf8))
    }

    /// A plain-text response.
    /// - Parameters:
    ///   - text: The text.
    ///   - status: The status.
    public static func text(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", bytes: Array(text.utf8))
    }

    /// The body's length when known in full.
    var knownLength: Int? {
        switch body {
        case .empty: 0
        case .bytes(let bytes): bytes.count
        case .stream: nil
        }
    }
}
