public import HTTPWire

/// Maps a method and a path to a handler. Patterns are `/`-separated segments; `{name}` captures one segment,
/// a final `{name...}` captures the rest of the path.
///
/// ```swift
/// var router = Router()
/// router.get("/v1/sessions/{id}") { request in .json("{\"id\":\"\(request.parameters["id"] ?? "")\"}") }
/// ```
public struct Router: Sendable {
    /// What answers a request.
    public typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse

    private struct Route: Sendable {
        let method: HTTPMethod
        let segments: [Segment]
        let handler: Handler
    }

    private enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
        case rest(String)
    }

    /// The outcome of routing one request.
    public enum Match: Sendable {
        /// A route matched; its parameters are filled in.
        case found(Handler, RouteParameters)
        /// The path exists but not for this method; the methods it allows.
        case methodNotAllowed([HTTPMethod])
        /// No route has this path.
        case notFound
    }

    private var routes: [Route] = []

    /// Creates an empty router.
    public init() {}

    /// Adds a route.
    /// - Parameters:
    ///   - method: The method.
    ///   - pattern: The path pattern, e.g. `/v1/sessions/{id}/series`.
    ///   - handler: What answers.
    public mutating func on(_ method: HTTPMethod, _ pattern: String, handler: @escaping Handler) {
        let segments: [Segment] = Self.split(pattern).map { part in
            guard part.hasPrefix("{"), part.hasSuffix("}") else { return .literal(part) }
            let name = String(part.dropFirst().dropLast())
            return name.hasSuffix("...") ? .rest(String(name.dropLast(3))) : .parameter(name)
        }
        routes.append(Route(method: method, segments: segments, handler: handler))
    }

    /// Adds a `GET` route (which also answers `HEAD`).
    /// - Parameters:
    ///   - pattern: The path pattern.
    ///   - handler: What answers.
    public mutating func get(_ pattern: String, handler: @escaping Handler) { on(.get, pattern, handler: handler) }

    /// Adds a `POST` route.
    /// - Parameters:
    ///   - pattern: The path pattern.
    ///   - handler: What answers.
    public mutating func post(_ pattern: String, handler: @escaping Handler) { on(.post, pattern, handler: handler) }

    /// Adds a `DELETE` route.
    /// - Parameters:
    ///   - pattern: The path pattern.
    ///   - handler: What answers.
    public mutating func delete(_ pattern: String, handler: @escaping Handler) {
        on(.delete, pattern, handler: handler)
    }

    /// Finds the route for a method and a decoded path. `HEAD` uses `GET` routes.
    /// - Parameters:
    ///   - method: The request method.
    ///   - path: The percent-decoded path.
    /// - Returns: The handler with its parameters, or why there is none.
    /// - Complexity: O(routes × segments).
    public func match(_ method: HTTPMethod, path: String) -> Match {
        let parts = Self.split(path)
        var allowed: [HTTPMethod] = []
        for route in routes {
            guard let parameters = Self.bind(route.segments, to: parts) else { continue }
            if route.method == method || (method == .head && route.method == .get) {
                return .found(route.handler, parameters)
            }
            if !allowed.contains(route.method) { allowed.append(route.method) }
        }
        if allowed.contains(.get), !allowed.contains(.head) { allowed.append(.head) }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed)
    }

    private static func split(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    private static func bind(_ segments: [Segment], to parts: [String]) -> RouteParameters? {
        var parameters = RouteParameters()
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .rest(let name):
                parameters.values.append((name, parts[min(index, parts.count)...].joined(separator: "/")))
                return parameters
            case .literal(let literal):
                guard index < parts.count, parts[index] == literal else { return nil }
            case .parameter(let name):
                guard index < parts.count else { return nil }
                parameters.values.append((name, parts[index]))
            }
        }
        return segments.count == parts.count ? parameters : nil
    }
}

/// The values a route pattern captured, by name.
public struct RouteParameters: Sendable {
    var values: [(String, String)] = []

    /// The value captured as `name`, or nil.
    /// - Parameter name: The name in the pattern, without braces.
    public subscript(name: String) -> String? { values.first { $0.0 == name }?.1 }
}
