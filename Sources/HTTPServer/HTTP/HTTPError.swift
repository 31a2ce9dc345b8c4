public import HTTPWire

/// An error the HTTP layer itself answers (no route, wrong method, a malformed request, a refused handshake, a
/// missing file) or a handler throws for the server to render: its status, a stable code and a message. The
/// body is written by the application's ``HTTPErrorRenderer``, so the server never decides the application's
/// error shape.
public struct HTTPError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The status.
    public var status: HTTPStatus
    /// A stable machine-readable code, e.g. `notFound`.
    public var code: String
    /// A short human-readable explanation.
    public var message: String
    /// Headers the response must carry whatever its body (e.g. `Allow` with `405`).
    public var headers: HTTPHeaders

    /// Creates an error.
    /// - Parameters:
    ///   - status: The status.
    ///   - code: A stable machine-readable code.
    ///   - message: A short explanation.
    ///   - headers: Headers the response must carry.
    public init(_ status: HTTPStatus, code: String, message: String, headers: HTTPHeaders = HTTPHeaders()) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    /// `status code: message`.
    public var description: String { "\(status.code) \(code): \(message)" }

    /// `404 notFound`: no route and no fallback answered.
    static let notFound = HTTPError(.notFound, code: "notFound", message: "no such resource")

    /// `500 internalError`: what a handler's unexpected error is answered with (the error itself is logged, not
    /// shown).
    static let internalFailure = HTTPError(.internalServerError, code: "internalError", message: "internal error")
}
