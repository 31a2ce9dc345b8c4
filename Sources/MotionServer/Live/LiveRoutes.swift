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
        // Any session in progress, live or driven over HTTP, on this node or another; a tenant learns only of its
        // own sessions: another tenant's id answers 404 like an unknown one. A query it cannot read answers 400; a
        // store that cannot say where the session runs, 503 (never a wrong 404).
        let watchable: @Sendable (HTTPRequest, Caller) async throws -> WebSocketUpgradeDecision = { request, caller in
            guard let id = request.sessionID else { throw RESTError.notFound }
            _ = try WatchOptions(request)
            if context.watchedSession(id, tenant: caller.tenant) == nil {
                let holder: String?
                do {
                    holder = try await context.remoteHolder(of: id, tenant: caller.tenant)
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
        // Authentication has run before any of these: an unauthenticated handshake never reaches them.
        router.callerRoutes { routes in
            routes.webSocket(
                "/v1/stream", configuration: configuration, hub: hub, logger: context.logger, patient: .scoped,
                shouldUpgrade: { request, _ in Self.echoBearerSubprotocol(request) }
            ) { socket, caller in
                LiveSession(socket: socket, caller: caller, context: context).attach()
            }
            routes.webSocket(
                "/v1/sessions/{id}/watch", configuration: watching, hub: hub, logger: context.logger,
                patient: .refused, shouldUpgrade: watchable
            ) { socket, caller in
                guard let id = socket.request?.sessionID else {
                    return socket.close(code: .normal, reason: "session ended")
                }
                let tenant = caller.tenant
                socket.onMessage = { _ in }
                socket.onClose = { _, _ in Task { await context.unwatch(socket, of: id, tenant: tenant) } }
                Task { await context.follow(id, tenant: tenant, sockets: [socket], awayFrom: "") }
            }
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
