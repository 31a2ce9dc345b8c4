public import HTTPWire

/// Maps a method and a path to a handler. Patterns are `/`-separated segments; `{name}` captures one segment,
/// a final `{name...}` captures the rest of the path.
///
/// A handler that does not `await` is an ``ImmediateHandler``: it answers on the connection's loop as soon as the
/// request is in, with no task. One that awaits (the store, an actor) is a ``Handler`` and runs in a task on the
/// same loop. Swift picks the overload from the closure, so nothing needs saying:
///
/// ```swift
/// var router = Router()
/// router.get("/healthz") { _ in .text("ok") }                    // immediate
/// router.get("/v1/sessions/{id}") { request in                   // awaits: a task
///     guard let id = request.parameters["id"], let item = await store.item(id) else { throw HTTPError(.notFound, …) }
///     return .json(item)
/// }
/// ```
public struct Router: Sendable {
    /// What answers a request when it has to wait for something. A thrown error is rendered by the server: an
    /// ``HTTPResponseError`` gives its own response, an ``HTTPError`` goes through
    /// ``HTTPServerConfiguration/errorRenderer``, anything else is logged and answered `500`.
    public typealias Handler = @Sendable (HTTPRequest) async throws -> HTTPResponse
    /// What answers a request without waiting: it runs on the connection's loop at once, so it must not block (no
    /// file or network I/O, no lock held for long). Errors are rendered as a ``Handler``'s are.
    public typealias ImmediateHandler = @Sendable (HTTPRequest) throws -> HTTPResponse

    /// A route's handler, of either kind.
    public enum RouteHandler: Sendable {
        /// Answers at once, on the loop.
        case immediate(ImmediateHandler)
        /// Answers in a task on the loop.
        case deferred(Handler)
    }

    private struct Route: Sendable {
        let method: HTTPMethod
        let segments: [Segment]
        let handler: RouteHandler
        let matched: MatchedRoute

        /// Whether a path of `count` segments can match (a final `{name...}` takes zero or more).
        func accepts(segmentCount count: Int) -> Bool {
            guard case .rest = segments.last else { return count == segments.count }
            return count >= segments.count - 1
        }
    }

    private enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
        case rest(String)
    }

    /// The outcome of routing one request.
    public enum Match: Sendable {
        /// A route matched; its parameters are filled in.
        case found(RouteHandler, RouteParameters, MatchedRoute)
        /// The path exists but not for this method; the methods it allows, and the first route with the path.
        case methodNotAllowed([HTTPMethod], MatchedRoute)
        /// No route has this path.
        case notFound

        /// The route the path matched, whatever the method; nil when none did.
        public var route: MatchedRoute? {
            switch self {
            case .found(_, _, let route), .methodNotAllowed(_, let route): route
            case .notFound: nil
            }
        }
    }

    private var table: [Route] = []

    /// Creates an empty router.
    public init() {}

    /// The route table, in the order ``match(_:path:)`` tries it: each route's method, pattern and kind. `HEAD` is
    /// not listed; it takes the `GET` routes.
    public var routes: [RegisteredRoute] {
        table.map { RegisteredRoute(method: $0.method, route: $0.matched) }
    }

    /// Adds a route that answers at once.
    /// - Parameters:
    ///   - method: The method.
    ///   - pattern: The path pattern, e.g. `/v1/sessions/{id}/series`.
    ///   - handler: What answers.
    public mutating func on(_ method: HTTPMethod, _ pattern: String, handler: @escaping ImmediateHandler) {
        add(method, pattern, isWebSocket: false, handler: .immediate(handler))
    }

    /// Adds a route that answers in a task.
    /// - Parameters:
    ///   - method: The method.
    ///   - pattern: The path pattern, e.g. `/v1/sessions/{id}/series`.
    ///   - handler: What answers.
    public mutating func on(_ method: HTTPMethod, _ pattern: String, handler: @escaping Handler) {
        add(method, pattern, isWebSocket: false, handler: .deferred(handler))
    }

    /// Adds a route, marked as a WebSocket endpoint or not.
    mutating func add(_ method: HTTPMethod, _ pattern: String, isWebSocket: Bool, handler: RouteHandler) {
        let segments: [Segment] = Self.split(pattern).map { part in
            guard part.hasPrefix("{"), part.hasSuffix("}") else { return .literal(part) }
            let name = String(part.dropFirst().dropLast())
            return name.hasSuffix("...") ? .rest(String(name.dropLast(3))) : .parameter(name)
        }
        let matched = MatchedRoute(pattern: pattern, isWebSocket: isWebSocket)
        table.append(Route(method: method, segments: segments, handler: handler, matched: matched))
    }

    /// Adds a `GET` route (which also answers `HEAD`) that answers at once.
    public mutating func get(_ pattern: String, handler: @escaping ImmediateHandler) {
        on(.get, pattern, handler: handler)
    }

    /// Adds a `GET` route (which also answers `HEAD`) that answers in a task.
    public mutating func get(_ pattern: String, handler: @escaping Handler) { on(.get, pattern, handler: handler) }

    /// Adds a `POST` route that answers at once.
    public mutating func post(_ pattern: String, handler: @escaping ImmediateHandler) {
        on(.post, pattern, handler: handler)
    }

    /// Adds a `POST` route that answers in a task.
    public mutating func post(_ pattern: String, handler: @escaping Handler) { on(.post, pattern, handler: handler) }

    /// Adds a `PUT` route that answers at once.
    public mutating func put(_ pattern: String, handler: @escaping ImmediateHandler) {
        on(.put, pattern, handler: handler)
    }

    /// Adds a `PUT` route that answers in a task.
    public mutating func put(_ pattern: String, handler: @escaping Handler) { on(.put, pattern, handler: handler) }

    /// Adds a `DELETE` route that answers at once.
    public mutating func delete(_ pattern: String, handler: @escaping ImmediateHandler) {
        on(.delete, pattern, handler: handler)
    }

    /// Adds a `DELETE` route that answers in a task.
    public mutating func delete(_ pattern: String, handler: @escaping Handler) {
        on(.delete, pattern, handler: handler)
    }

    /// Finds the route for a method and a decoded path. `HEAD` uses `GET` routes. Empty segments are ignored, so
    /// `//metrics`, `/metrics/` and `/metrics` find the same route: decide on the match, never on the raw path.
    /// - Parameters:
    ///   - method: The request method.
    ///   - path: The percent-decoded path.
    /// - Returns: The handler with its parameters, or why there is none.
    /// - Complexity: O(routes × segments).
    public func match(_ method: HTTPMethod, path: String) -> Match {
        let parts = Self.parts(of: path)
        var allowed: [HTTPMethod] = []
        var first: MatchedRoute?
        for route in table where route.accepts(segmentCount: parts.count) {
            guard Self.matches(route.segments, parts) else { continue }
            if route.method == method || (method == .head && route.method == .get) {
                return .found(route.handler, Self.bind(route.segments, to: parts), route.matched)
            }
            first = first ?? route.matched
            if !allowed.contains(route.method) { allowed.append(route.method) }
        }
        guard let first else { return .notFound }
        if allowed.contains(.get), !allowed.contains(.head) { allowed.append(.head) }
        return .methodNotAllowed(allowed, first)
    }

    /// The path's non-empty `/`-separated segments. An ASCII path (every path the routes name) is cut at its `/`
    /// bytes: splitting a `String` walks it by grapheme clusters, which cost more than the rest of the route lookup.
    /// Any other path is split by characters, where a `/` that a combining mark follows is no separator.
    private static func parts(of path: String) -> [Substring] {
        let utf8 = path.utf8
        var parts: [Substring] = []
        var start = utf8.startIndex
        var index = start
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte >= 0x80 { return path.split(separator: "/", omittingEmptySubsequences: true) }
            if byte == UInt8(ascii: "/") {
                if index != start { parts.append(Substring(utf8[start..<index])) }
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        if start != utf8.endIndex { parts.append(Substring(utf8[start...])) }
        return parts
    }

    private static func split(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    /// Whether the literal segments match; the caller has checked the number of parts (``Route/accepts(segmentCount:)``).
    private static func matches(_ segments: [Segment], _ parts: [Substring]) -> Bool {
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .rest: return true
            case .literal(let literal): guard parts[index] == literal else { return false }
            case .parameter: continue
            }
        }
        return true
    }

    /// What the parameters of a matching route captured.
    private static func bind(_ segments: [Segment], to parts: [Substring]) -> RouteParameters {
        var parameters = RouteParameters()
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .rest(let name):
                parameters.values.append((name, parts[min(index, parts.count)...].joined(separator: "/")))
            case .parameter(let name):
                parameters.values.append((name, String(parts[index])))
            case .literal:
                continue
            }
        }
        return parameters
    }
}

/// The route a request matched, as middleware sees it: authorization, metrics labels and logs decide on this, not
/// on the raw path, so two spellings of one path never take two ways through the server.
public struct MatchedRoute: Sendable, Hashable {
    /// The pattern as registered, e.g. `/v1/sessions/{id}`: a bounded set, safe as a metrics label.
    public var pattern: String
    /// Whether the route is a WebSocket endpoint (``Router/webSocket(_:configuration:hub:logger:shouldUpgrade:onUpgrade:)``).
    public var isWebSocket: Bool

    /// Creates a description of a route.
    /// - Parameters:
    ///   - pattern: The pattern as registered.
    ///   - isWebSocket: Whether it is a WebSocket endpoint.
    public init(pattern: String, isWebSocket: Bool) {
        self.pattern = pattern
        self.isWebSocket = isWebSocket
    }
}

/// One entry of a router's table (``Router/routes``): what was registered, without its handler.
public struct RegisteredRoute: Sendable, Hashable {
    /// The method it answers (`GET` routes also answer `HEAD`).
    public var method: HTTPMethod
    /// Its pattern as registered, and whether it is a WebSocket endpoint.
    public var route: MatchedRoute

    /// Creates a table entry.
    /// - Parameters:
    ///   - method: The method.
    ///   - route: The pattern and kind.
    public init(method: HTTPMethod, route: MatchedRoute) {
        self.method = method
        self.route = route
    }
}

/// The values a route pattern captured, by name.
public struct RouteParameters: Sendable {
    var values: [(String, String)] = []

    /// The value captured as `name`, or nil.
    /// - Parameter name: The name in the pattern, without braces.
    public subscript(name: String) -> String? { values.first { $0.0 == name }?.1 }
}
