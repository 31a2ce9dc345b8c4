/// A response status line and header fields, ready to be serialised by `HTTPResponseWriter`.
public struct HTTPResponseHead: Sendable, Equatable {
    /// The status.
    public var status: HTTPStatus
    /// The version written on the status line; `HTTP/1.1` by default (RFC 9110 §6.2).
    public var version: HTTPVersion
    /// The header fields, written in order. `Content-Length` and `Date` are added automatically when absent
    /// (see `HTTPResponseWriter`).
    public var headers: HTTPHeaders

    /// Creates a response head.
    ///
    /// - Parameters:
    ///   - status: The status.
    ///   - version: The version; defaults to `HTTP/1.1`.
    ///   - headers: The header fields; defaults to none.
    public init(status: HTTPStatus, version: HTTPVersion = .http11, headers: HTTPHeaders = HTTPHeaders()) {
        self.status = status
        self.version = version
        self.headers = headers
    }
}
