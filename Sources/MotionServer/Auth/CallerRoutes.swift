import HTTPServer
import HTTPWire
import MotionWire

/// A group of routes that run only as a ``Caller``, and what each of them carries: its handler gets the caller typed
/// beside the request, resolved from what ``Authentication`` attached, never read from the request by the handler.
///
/// - A request without a caller is answered `401`: it cannot happen behind ``Authentication``, and a request never
///   runs as an empty or a default tenant by mistake.
/// - Every route states what a patient code may do on it (``PatientAccess``): nothing (`403`), the routes of its own
///   subject's path (`404` for another subject, as for an unknown one), or what the handler scopes to
///   ``Caller/subject`` itself.
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
    ///   - patient: What a patient code may do on it (docs/protocol.md §6.1).
    ///   - handler: What answers.
    mutating func on(
        _ method: HTTPMethod, _ pattern: String, patient: PatientAccess, handler: @escaping Handler
    ) {
        router.on(method, pattern) { (request: HTTPRequest) async throws -> HTTPResponse in
            let caller = try Self.caller(of: request)
            try patient.check(caller, request)
            do {
                return try await handler(request, caller)
            } catch let error as WireError {
                // A store failure met on the way (a programme item's start reads the programme) is the store's.
                throw error.code == .storeUnavailable ? RESTError.storeUnavailable : RESTError.invalidInput(error)
            }
        }
    }

    /// Adds a `GET` route (which also answers `HEAD`).
    mutating func get(_ pattern: String, patient: PatientAccess, handler: @escaping Handler) {
        on(.get, pattern, patient: patient, handler: handler)
    }

    /// Adds a `POST` route.
    mutating func post(_ pattern: String, patient: PatientAccess, handler: @escaping Handler) {
        on(.post, pattern, patient: patient, handler: handler)
    }

    /// Adds a `PUT` route.
    mutating func put(_ pattern: String, patient: PatientAccess, handler: @escaping Handler) {
        on(.put, pattern, patient: patient, handler: handler)
    }

    /// Adds a `DELETE` route.
    mutating func delete(_ pattern: String, patient: PatientAccess, handler: @escaping Handler) {
        on(.delete, pattern, patient: patient, handler: handler)
    }

    /// Adds a WebSocket endpoint (``Router/webSocket(_:configuration:hub:logger:shouldUpgrade:onUpgrade:)``) whose
    /// decision and connections get the caller. A connection whose handshake carried none (which cannot happen behind
    /// ``Authentication``) is closed with 1008 `unauthorized`.
    mutating func webSocket(
        _ pattern: String, configuration: WebSocketConfiguration, hub: WebSocketHub?, logger: Logger,
        patient: PatientAccess,
        shouldUpgrade: @escaping @Sendable (HTTPRequest, Caller) async throws -> WebSocketUpgradeDecision,
        onUpgrade: @escaping @Sendable (WebSocket, Caller) -> Void
    ) {
        router.webSocket(
            pattern, configuration: configuration, hub: hub, logger: logger,
            shouldUpgrade: { request in
                let caller = try Self.caller(of: request)
                try patient.check(caller, request)
                return try await shouldUpgrade(request, caller)
            },
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

/// What a patient code (docs/protocol.md §6.1) may do on a route: stated by every route of a ``CallerRoutes`` group,
/// checked before its handler runs. A tenant's token passes every rule.
enum PatientAccess: Sendable {
    /// Nothing: `403 forbidden` (writes of exercises, programmes and codes, deletes, previews, watching).
    case refused
    /// The route names a subject in its `{subject}` parameter: the code's own is served, any other answers `404`
    /// exactly as a subject without data would not tell apart.
    case ownSubject
    /// The handler limits what it reads or starts to ``Caller/subject`` (a listing filtered to it, a session or
    /// programme of another subject answered `404`, a start only of the subject's programme items).
    case scoped

    /// Refuses `caller` on `request` when the rule does.
    /// - Throws: ``RESTError/forbidden`` or ``RESTError/notFound``.
    func check(_ caller: Caller, _ request: HTTPRequest) throws(RESTError) {
        guard caller.isPatient else { return }
        switch self {
        case .refused: throw .forbidden
        case .ownSubject: if request.parameters["subject"] != caller.subject { throw .notFound }
        case .scoped: break
        }
    }
}
