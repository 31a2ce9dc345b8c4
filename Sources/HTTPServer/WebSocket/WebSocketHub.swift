public import HTTPWire

/// The open WebSocket connections of a route (or several), so the application can close them all on shutdown.
public final class WebSocketHub: Sendable {
    private let sockets = Locked<[ObjectIdentifier: WebSocket]>([:])

    /// Creates an empty hub.
    public init() {}

    /// The number of open connections.
    public var count: Int { sockets.withLock { $0.count } }

    func add(_ socket: WebSocket) { sockets.withLock { $0[ObjectIdentifier(socket)] = socket } }

    func remove(_ socket: WebSocket) { _ = sockets.withLock { $0.removeValue(forKey: ObjectIdentifier(socket)) } }

    /// Starts the closing handshake on every connection and waits until they have closed or `timeout` passed.
    /// - Parameters:
    ///   - code: The close code (1001 when the server is going away).
    ///   - reason: A short reason.
    ///   - timeout: The longest to wait.
    public func closeAll(
        code: WebSocketCloseCode = .goingAway, reason: String = "", timeout: Duration = .seconds(5)
    )
        async
    {
        for socket in sockets.withLock({ Array($0.values) }) { socket.close(code: code, reason: reason) }
        let deadline = ContinuousClock.now + timeout
        while count > 0 && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
    }
}
