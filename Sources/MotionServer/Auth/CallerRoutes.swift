import HTTPServer
import HTTPWire
import MotionWire

/// A group of routes that run only as a ``Caller``, and what each of them carries: its handler gets the caller typed
/// beside the request, resolved from what ``Authentication`` attached, never read from the request by the handler.
///
/// - A request without a caller is answered `401`: it cannot happen behind ``Authentication``, and a request never
///   runs as an empty or a default tenant by mistake.
/// - A body or definition the wire decoder refuses (``WireError``) is answered as ``RESTError/invalidInput(_:)``
///   (`400`, `413`, or `422` with the pointer of an exercise definition's bad field).
///
/// Handlers run in a task, as a ``Router/Handler`` does. Who may reach a route is still decided by
/// ``Authentication`` on the matched route (public routes, operator routes), before the group is asked.
///
/// ```swift
/// router.callerRoutes { routes in
///     routes.get("/v1/exercises") { request, caller in … caller.tenant … }
/// }
/// ```
struct CallerRoutes {
    /// What answers a request of the group.
    typealias Handler = @Sendable (HTTPRequest, Caller) async throws -> HTTPResponse

    /// The router the group adds to.
    fileprivate var router: Router

    /// Adds a route.
    /// - Parameters:
    ///   - method: The method.
    ///   - pattern: The path pattern, e.g. `/v1/sessions/{id}/series`.
    ///   - handler: What answers.
    mutating func on(_ method: HTTPMethod, _ pattern: String, handler: @escaping Handler) {
        router.on(method, pattern) { (request: HTTPRequest) async throws -> HTTPResponse in
            let caller = try Self.caller(of: request)
            do {
                return try await handler(request, caller)
            } catch let error as WireError {
                throw RESTError.invalidInput(error)
            }
        }
    }

    /// Adds a `GET` route (which also answers `HEAD`).
    mutating func get(_ pattern: String, handler: @escaping Handler) { on(.get, pattern, handler: handler) }

    /// Adds a `POST` route.
    mutating func post(_ pattern: String, handler: @escaping Handler) { on(.post, pattern, handler: handler) }

    /// Adds a `PUT` route.
    mutating func put(_ pattern: String, handler: @escaping Handler) { on(.put, pattern, handler: handler) }

    /// Adds a `DELETE` route.
    mutating func delete(_ pattern: String, handler: @escaping Handler) { on(.delete, pattern, handler: handler) }

    /// Adds a WebSocket endpoint (``Router/webSocket(_:configuration:hub:logger:shouldUpgrade:onUpgrade:)``) whose
    /// decision and connections get the caller. A connection whose handshake carried none (which cannot happen behind
    /// ``Authentication``) is closed with 1008 `unauthorized`.
    mutating func webSocket(
        _ pattern: String, configuration: WebSocketConfiguration, hub: WebSocketHub?, logger: Logger,
        shouldUpgrade: @escaping @Sendable (HTTPRequest, Caller) async throws -> WebSocketUpgradeDecision,
        onUpgrade: @escaping @Sendable (WebSocket, Caller) -> Void
    ) {
        router.webSocket(
            pattern, configuration: configuration, hub: hub, logger: logger,
            shouldUpgrade: { request in try await shouldUpgrade(request, try Self.caller(of: request)) },
            onUpgrade: { socket in
                // The handshake request is the socket's while this runs, whatever the configuration keeps after.
                guard let caller = socket.request?.context[Caller.self] else {
                    return socket.close(code: .policyViolation, reason: "unauthorized")
                }
                onUpgrade(socket, caller)
            })
    }

    /// The caller ``Authentication`` attached to `request`.
    /// - Throws: ``RESTError/unauthorized`` without one.
    private static func caller(of request: HTTPRequest) throws(RESTError) -> Caller {
        guard let caller = request.context[Caller.self] else { throw .unauthorized }
        return caller
    }
}

extension Router {
    /// Adds the routes `body` registers through a ``CallerRoutes`` group: each runs only as a caller, which its
    /// handler gets typed.
    /// - Parameter body: Registers the group's routes.
    mutating func callerRoutes(_ body: (inout CallerRoutes) -> Void) {
        var group = CallerRoutes(router: Router())
        swap(&self, &group.router)
        body(&group)
        swap(&self, &group.router)
    }
}
