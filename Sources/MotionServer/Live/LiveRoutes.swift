import HTTPServer
import HTTPWire
import SessionStore

/// The WebSocket endpoints: `/v1/stream` (live sessions), `/v1/sessions/{id}/watch` (read-only observers) and,
/// when enabled, `/v1/echo` (conformance target with the same limits and extensions).
struct LiveRoutes {
    let context: AppContext
    let hub: WebSocketHub
    let configuration: WebSocketConfiguration

    func add(to router: inout Router, echo: Bool) {
        let context = self.context
        // Authentication has run before any of these: an unauthenticated handshake never reaches them.
        router.webSocket(
            "/v1/stream", configuration: configuration, hub: hub, logger: context.logger,
            shouldUpgrade: Self.echoBearerSubprotocol
        ) { socket in
            guard let tenant = socket.request?.tenant else {
                return socket.close(code: .policyViolation, reason: "unauthorized")
            }
            LiveSession(socket: socket, tenant: tenant, context: context).attach()
        }
        // Any session in progress, live or driven over HTTP, on this node or another; a tenant learns only of its
        // own sessions: another tenant's id answers 404 like an unknown one. A query it cannot read answers 400; a
        // store that cannot say where the session runs, 503 (never a wrong 404).
        let watchable: @Sendable (HTTPRequest) async throws -> WebSocketUpgradeDecision = { request in
            guard let tenant = request.tenant, let id = request.sessionID else { throw RESTError.notFound }
            _ = try WatchOptions(request)
            if context.watchedSession(id, tenant: tenant) == nil {
                let holder: String?
                do {
                    holder = try await context.remoteHolder(of: id, tenant: tenant)
                } catch {
                    context.metrics.storeFailed("watch")
                    context.logger.log(.error, "store call failed", ["operation": "watch", "error": "\(error)"])
                    throw RESTError.storeUnavailable
                }
                if holder == nil { throw RESTError.notFound }
            }
            return Self.echoBearerSubprotocol(request)
        }
        // A watcher's query (``WatchOptions``) is read from its request for every message it may get.
        var watching = configuration
        watching.keepsRequest = true
        router.webSocket(
            "/v1/sessions/{id}/watch", configuration: watching, hub: hub, logger: context.logger,
            shouldUpgrade: watchable
        ) { socket in
            guard let request = socket.request, let tenant = request.tenant, let id = request.sessionID else {
                return socket.close(code: .normal, reason: "session ended")
            }
            socket.onMessage = { _ in }
            socket.onClose = { _, _ in Task { await context.unwatch(socket, of: id, tenant: tenant) } }
            Task { await context.follow(id, tenant: tenant, sockets: [socket], awayFrom: "") }
        }
        if echo {
            router.webSocket(
                "/v1/echo", configuration: configuration, hub: hub, logger: context.logger,
                shouldUpgrade: Self.echoBearerSubprotocol
            ) { socket in
                socket.onMessage = { message in socket.send(message) }
            }
        }
    }

    /// Accepts the upgrade, agreeing on the client's `bearer.<token>` subprotocol if it offered one (browsers
    /// fail a handshake whose response names no protocol when they offered some). ``Authentication`` has refused
    /// ambiguous offers before.
    @Sendable static func echoBearerSubprotocol(_ request: HTTPRequest) -> WebSocketUpgradeDecision {
        .accept(subprotocol: (try? Authentication.subprotocolToken(request.headers))?.subprotocol)
    }
}
