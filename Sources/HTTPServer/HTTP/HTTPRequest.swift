public import HTTPWire

/// A complete request as a handler sees it: the head, the whole body, and what routing captured.
public struct HTTPRequest: Sendable {
    /// The parsed request line and headers.
    public var head: HTTPRequestHead
    /// The body, de-chunked (empty when there was none).
    public var body: [UInt8]
    /// Values captured by the route pattern.
    public var parameters = RouteParameters()
    /// The route the path matched (whatever the method), set before any middleware runs; nil when no route
    /// matched and the fallback (e.g. static files) answers.
    public internal(set) var route: MatchedRoute?
    /// The router's answer, carried from routing (before the middleware) to the handler (after it).
    var match = Router.Match.notFound
    /// The peer's address, when known.
    public var remoteAddress: SocketAddress?
    /// Values middleware attaches for the handlers after it (e.g. the authenticated tenant).
    public var attributes: [String: String] = [:]

    /// Creates a request.
    /// - Parameters:
    ///   - head: The head.
    ///   - body: The body.
    ///   - remoteAddress: The peer.
    public init(head: HTTPRequestHead, body: [UInt8] = [], remoteAddress: SocketAddress? = nil) {
        self.head = head
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// The method.
    public var method: HTTPMethod { head.method }
    /// The percent-decoded path.
    public var path: String { head.path }
    /// The headers.
    public var headers: HTTPHeaders { head.headers }

    /// The first query value named `name`, percent-decoded, or nil.
    /// - Parameter name: The parameter name.
    public func query(_ name: String) -> String? { head.queryItems.first { $0.name == name }?.value }
}
