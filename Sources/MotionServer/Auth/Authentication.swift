import HTTPServer
import HTTPWire

/// Resolves the tenant of every request (docs/protocol.md §6) and refuses unauthenticated ones.
///
/// It decides on the route the router matched, never on the raw path, so no spelling of a path (`//metrics`,
/// `/metrics/`) and no header (`Connection: Upgrade`) takes another way past it. Every matched route needs a token
/// except the public ones (`/healthz`, `/readyz`, the FHIR code systems of the catalog); requests no route matches
/// go to the static files, which are public. WebSocket routes also take the token as a `bearer.<token>` subprotocol and refuse a valid handshake by
/// opening and closing it with 1008, which a browser can see; any other refusal is `401`. Operator routes
/// (`/metrics`, every tenant's figures) need an operator token (`403` otherwise). Every request it lets through to a
/// route that is not public carries its ``Caller`` (`request.context[Caller.self]`), which ``CallerRoutes`` hands
/// to their handlers.
///
/// A patient code (docs/protocol.md §6.1, ``PatientCodes``) is taken wherever a token is, with or without tokens
/// configured, and makes a caller limited to its subject; an expired or revoked one is refused like an unknown
/// token, also on a server without tokens.
///
/// A request offers one credential or none: two `Authorization` fields, or a header and a subprotocol (or two
/// subprotocols) naming different tokens, are refused with `400 ambiguousCredentials` rather than read one way here
/// and another way by a proxy in front.
struct Authentication: HTTPMiddleware {
    let context: AppContext

    /// Routes anyone may call: the probes, and the FHIR export's built-in code systems (``FHIRRoutes/publicRoutes``).
    /// Arrays, not sets: every request looks its route up here, and comparing a few patterns costs less than hashing.
    static let publicRoutes: [String] = ["/healthz", "/readyz"] + FHIRRoutes.publicRoutes
    /// Routes that show figures across tenants.
    static let operatorRoutes: [String] = ["/metrics"]

    func prepare(_ request: inout HTTPRequest) throws -> HTTPResponse? {
        guard let route = request.route, !Self.publicRoutes.contains(route.pattern) else { return nil }
        let offered = route.isWebSocket ? try Self.subprotocolToken(request.headers) : nil
        let header = try Self.bearerToken(request.headers)
        if let header, let offered, header != offered.token {
            throw RESTError.ambiguousCredentials(
                "the Authorization header and the bearer. subprotocol name different tokens")
        }
        let token = header ?? offered?.token
        let caller: Caller
        // A patient code first: without tokens every other bearer is the default tenant's.
        switch token.map({ context.patientCodes.lookup($0, now: context.clock()) }) ?? .unknown {
        case .patient(let patient):
            caller = patient
        case .refused:
            return try refuse(request, route: route, subprotocol: offered?.subprotocol)
        case .unknown:
            guard let grant = context.grant(forToken: token) else {
                return try refuse(request, route: route, subprotocol: offered?.subprotocol)
            }
            caller = Caller(grant)
        }
        if Self.operatorRoutes.contains(route.pattern) && caller.role != .operator { throw RESTError.forbidden }
        request.context[Caller.self] = caller
        return nil
    }

    /// Refuses a request without a valid credential: a WebSocket handshake is accepted and closed with 1008 (which a
    /// browser can see), anything else is `401`.
    private func refuse(
        _ request: HTTPRequest, route: MatchedRoute, subprotocol: String?
    ) throws(RESTError) -> HTTPResponse {
        if route.isWebSocket,
            let refusal = HTTPResponse.webSocketRefusal(
                to: request, code: .policyViolation, reason: "unauthorized", subprotocol: subprotocol,
                logger: context.logger)
        {
            return refusal
        }
        throw .unauthorized
    }

    /// The token of an `Authorization: Bearer …` header (RFC 6750 §2.1), nil without one or for another scheme.
    /// - Throws: ``RESTError/ambiguousCredentials(_:)`` for more than one `Authorization` field (RFC 9110 §5.3: it
    ///   is no list, so two cannot be combined).
    static func bearerToken(_ headers: HTTPHeaders) throws(RESTError) -> String? {
        let values = headers.values(for: "Authorization")
        guard values.count <= 1 else { throw .ambiguousCredentials("more than one Authorization header") }
        guard let value = values.first else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return String(parts[1])
    }

    /// The token of a `bearer.<token>` WebSocket subprotocol, and that subprotocol (the first, when one is offered
    /// more than once).
    /// - Throws: ``RESTError/ambiguousCredentials(_:)`` when two `bearer.` subprotocols name different tokens.
    static func subprotocolToken(_ headers: HTTPHeaders) throws(RESTError) -> (token: String, subprotocol: String)? {
        var found: (token: String, subprotocol: String)?
        for value in headers.values(for: "Sec-WebSocket-Protocol") {
            for item in value.split(separator: ",") {
                let name = item.trimmingBlanks()
                guard name.hasPrefix("bearer."), name.utf8.count > 7 else { continue }
                let token = String(name.dropFirst(7))
                if let found, found.token != token {
                    throw .ambiguousCredentials("bearer. subprotocols name different tokens")
                }
                if found == nil { found = (token, name) }
            }
        }
        return found
    }
}

/// Counts every request by route pattern and status for `/metrics`: the label set is bounded by the routes, whatever
/// paths clients send (`static` for files the fallback served, `other` for everything else no route matched).
struct RequestMetrics: HTTPMiddleware {
    let metrics: ServerMetrics

    func complete(_ response: inout HTTPResponse, to request: HTTPRequest) {
        // Every response reaches it: the handler's, an error rendered, the answer of the middleware inside it.
        let status = response.status.code
        let route = request.route?.pattern ?? (status < 400 ? "static" : "other")
        metrics.countRequest(route: route, status: status)
    }
}
