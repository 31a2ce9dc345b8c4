import HTTPWire

/// Whether to accept a WebSocket upgrade, decided by the application after the handshake is found valid.
public enum WebSocketUpgradeDecision: Sendable {
    /// Accept, agreeing on `subprotocol` (which must be one the client offered, or nil).
    case accept(subprotocol: String?)
    /// Refuse with this response (e.g. `401`).
    case reject(HTTPResponse)
}

extension Router {
    /// Adds a WebSocket endpoint (RFC 6455 §4.2): validates the opening handshake (`400`, or `426` with the
    /// supported version), checks the origin, asks `shouldUpgrade`, negotiates permessage-deflate, answers `101`
    /// and hands the connection to `onUpgrade` on its event loop, where it sets ``WebSocket/onMessage`` and
    /// ``WebSocket/onClose`` before any message is delivered.
    ///
    /// ```swift
    /// router.webSocket("/v1/echo") { socket in
    ///     socket.onMessage = { message in socket.send(message) }
    /// }
    /// ```
    /// - Parameters:
    ///   - pattern: The path pattern.
    ///   - configuration: Limits, timers and compression.
    ///   - hub: Where open connections are tracked, to close them on shutdown.
    ///   - logger: Where protocol problems are logged.
    ///   - shouldUpgrade: The application's decision (authentication, subprotocol choice).
    ///   - onUpgrade: Receives each new connection, on its loop thread.
    public mutating func webSocket(
        _ pattern: String, configuration: WebSocketConfiguration = WebSocketConfiguration(), hub: WebSocketHub? = nil,
        logger: Logger = Logger(level: .notice),
        shouldUpgrade: @escaping @Sendable (HTTPRequest) async -> WebSocketUpgradeDecision = { _ in
            .accept(subprotocol: nil)
        },
        onUpgrade: @escaping @Sendable (WebSocket) -> Void
    ) {
        get(pattern) { request in
            let client: WebSocketHandshake.ClientRequest
            switch WebSocketHandshake.validateClientRequest(request.head) {
            case .success(let valid): client = valid
            case .failure(let error):
                var response = HTTPResponse.error(error.status, code: "badHandshake", message: "\(error)")
                if error.status.code == 426 {
                    response.headers.add(name: "Sec-WebSocket-Version", value: "13")
                    response.headers.add(name: "Upgrade", value: "websocket")
                }
                return response
            }
            if let allowed = configuration.allowedOrigins, let origin = client.origin, !allowed.contains(origin) {
                return .error(.forbidden, code: "originNotAllowed", message: "origin not allowed")
            }
            let subprotocol: String?
            switch await shouldUpgrade(request) {
            case .reject(let response): return response
            case .accept(let chosen): subprotocol = chosen
            }
            let negotiated = configuration.compression.flatMap {
                PerMessageDeflate.negotiate(
                    offers: request.headers.values(for: "Sec-WebSocket-Extensions"), configuration: $0)
            }
            var response = HTTPResponse(
                status: .switchingProtocols,
                headers: WebSocketHandshake.responseHeaders(
                    accepting: client, protocol: subprotocol, extensions: negotiated?.response))
            response.upgrade = { connection in
                let socket = WebSocket(
                    fd: connection.fd, loop: connection.loop, role: .server, request: request,
                    subprotocol: subprotocol, compression: negotiated?.parameters, configuration: configuration,
                    lifetime: connection.lifetime, logger: logger)
                if let hub {
                    hub.add(socket)
                    socket.addCloseObserver { hub.remove(socket) }
                }
                onUpgrade(socket)
                socket.start(leftover: connection.leftover)
            }
            return response
        }
    }
}
