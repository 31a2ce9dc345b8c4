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
        router.webSocket(
            "/v1/stream", configuration: configuration, hub: hub, logger: context.logger,
            shouldUpgrade: Self.echoBearerSubprotocol
        ) { socket in
            guard let tenant = Self.tenant(of: socket, context: context) else {
                return socket.close(code: .policyViolation, reason: "unauthorized")
            }
            LiveSession(socket: socket, tenant: tenant, context: context).attach()
        }
        // Unknown tokens are refused after the upgrade (1008); known tenants learn only of their own sessions.
        let watchable: @Sendable (HTTPRequest) async -> WebSocketUpgradeDecision = { request in
            if let tenant = context.tenant(forToken: Self.token(in: request)),
                request.sessionID.flatMap({ context.live.session($0, tenant: tenant) }) == nil
            {
                return .reject(REST.notFound)
            }
            return Self.echoBearerSubprotocol(request)
        }
        router.webSocket(
            "/v1/sessions/{id}/watch", configuration: configuration, hub: hub, logger: context.logger,
            shouldUpgrade: watchable
        ) { socket in
            guard let tenant = Self.tenant(of: socket, context: context),
                let id = socket.request?.sessionID, let live = context.live.session(id, tenant: tenant)
            else { return socket.close(code: .policyViolation, reason: "unauthorized") }
            socket.onMessage = { _ in }
            socket.onClose = { _, _ in Task { await live.removeWatcher(socket) } }
            Task { await live.addWatcher(socket) }
        }
        if echo {
            router.webSocket("/v1/echo", configuration: configuration, hub: hub, logger: context.logger) { socket in
                socket.onMessage = { message in socket.send(message) }
            }
        }
    }

    /// Accepts the upgrade, agreeing on the client's `bearer.<token>` subprotocol if it offered one (browsers
    /// fail a handshake whose response names no protocol when they offered some).
    @Sendable static func echoBearerSubprotocol(_ request: HTTPRequest) -> WebSocketUpgradeDecision {
        .accept(subprotocol: Authentication.subprotocolToken(request.headers)?.subprotocol)
    }

    static func token(in request: HTTPRequest) -> String? {
        Authentication.bearerToken(request.headers) ?? Authentication.subprotocolToken(request.headers)?.token
    }

    static func tenant(of socket: WebSocket, context: AppContext) -> String? {
        guard let request = socket.request else { return nil }
        return context.tenant(forToken: token(in: request))
    }
}
