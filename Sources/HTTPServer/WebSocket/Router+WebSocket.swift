public import Basics
public import HTTPWire

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
    /// ``WebSocket/onClose`` before any message is delivered. Middleware sees the route as a WebSocket one
    /// (``MatchedRoute/isWebSocket``).
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
    ///   - shouldUpgrade: The application's decision (authentication, subprotocol choice); what it throws is
    ///     rendered as a handler's error is.
    ///   - onUpgrade: Receives each new connection, on its loop thread.
    public mutating func webSocket(
        _ pattern: String, configuration: WebSocketConfiguration = WebSocketConfiguration(), hub: WebSocketHub? = nil,
        logger: Logger = Logger(level: .notice),
        shouldUpgrade: @escaping @Sendable (HTTPRequest) async throws -> WebSocketUpgradeDecision = { _ in
            .accept(subprotocol: nil)
        },
        onUpgrade: @escaping @Sendable (WebSocket) -> Void
    ) {
        let settings = WebSocket.Settings(configuration: configuration, logger: logger)
        add(
            .get, pattern, isWebSocket: true,
            handler: .deferred { request in
                let client: WebSocketHandshake.ClientRequest
                switch WebSocketUpgrade.validate(request) {
                case .success(let valid): client = valid
                case .failure(let refusal): throw refusal
                }
                if let allowed = configuration.allowedOrigins, let origin = client.origin, !allowed.contains(origin) {
                    throw HTTPError(.forbidden, code: "originNotAllowed", message: "origin not allowed")
                }
                switch try await shouldUpgrade(request) {
                case .reject(let response):
                    return response
                case .accept(let subprotocol):
                    return WebSocketUpgrade.accept(
                        request, client: client, subprotocol: subprotocol, settings: settings, hub: hub,
                        onUpgrade: onUpgrade)
                }
            })
    }
}

extension HTTPResponse {
    /// Answers a WebSocket handshake by opening the connection and closing it at once with `code` and `reason`:
    /// how a browser, which cannot read the HTTP status of a failed handshake, learns why it was refused.
    /// - Parameters:
    ///   - request: The handshake request.
    ///   - code: The close code, e.g. ``WebSocketCloseCode/policyViolation``.
    ///   - reason: The close reason (at most 123 bytes of UTF-8).
    ///   - subprotocol: The subprotocol to agree on (one the client offered, or nil); browsers fail a handshake
    ///     whose response names none when they offered some.
    ///   - logger: Where protocol problems are logged.
    /// - Returns: The `101` response that closes the connection once upgraded; nil when `request` is not a valid
    ///   WebSocket handshake (answer it with an HTTP status instead).
    public static func webSocketRefusal(
        to request: HTTPRequest, code: WebSocketCloseCode, reason: String, subprotocol: String?,
        logger: Logger = Logger(level: .notice)
    ) -> HTTPResponse? {
        switch WebSocketUpgrade.validate(request) {
        case .failure:
            return nil
        case .success(let client):
            var configuration = WebSocketConfiguration()
            configuration.compression = nil
            return WebSocketUpgrade.accept(
                request, client: client, subprotocol: subprotocol,
                settings: WebSocket.Settings(configuration: configuration, logger: logger), hub: nil
            ) { socket in socket.close(code: code, reason: reason) }
        }
    }
}

/// The two halves of a server-side upgrade, shared by WebSocket routes and refusals.
enum WebSocketUpgrade {
    /// Checks the opening handshake (RFC 6455 §4.2.1): `400`, or `426` naming the supported version.
    static func validate(_ request: HTTPRequest) -> Result<WebSocketHandshake.ClientRequest, HTTPError> {
        WebSocketHandshake.validateClientRequest(request.head).mapError { error in
            var refusal = HTTPError(error.status, code: "badHandshake", message: "\(error)")
            if error.status.code == 426 {
                refusal.headers.add(name: "Sec-WebSocket-Version", value: "13")
                refusal.headers.add(name: "Upgrade", value: "websocket")
            }
            return refusal
        }
    }

    /// The `101` response (RFC 6455 §4.2.2) whose upgrade opens the connection and hands it to `onUpgrade`.
    static func accept(
        _ request: HTTPRequest, client: WebSocketHandshake.ClientRequest, subprotocol: String?,
        settings: WebSocket.Settings, hub: WebSocketHub?, onUpgrade: @escaping @Sendable (WebSocket) -> Void
    ) -> HTTPResponse {
        let negotiated = settings.configuration.compression.flatMap {
            PerMessageDeflate.negotiate(
                offers: request.headers.values(for: "Sec-WebSocket-Extensions"), configuration: $0)
        }
        var response = HTTPResponse(
            status: .switchingProtocols,
            headers: WebSocketHandshake.responseHeaders(
                accepting: client, protocol: subprotocol, extensions: negotiated?.response))
        response.upgrade = { connection in
            let socket = WebSocket(
                transport: connection.transport, loop: connection.loop, role: .server,
                handshake: WebSocket.HandshakeRequest(request),
                subprotocol: subprotocol, compression: negotiated?.parameters, settings: settings,
                budget: connection.budget, lifetime: connection.lifetime)
            if let hub { socket.track(in: hub) }
            onUpgrade(socket)
            socket.start(leftover: connection.leftover)
        }
        return response
    }
}
