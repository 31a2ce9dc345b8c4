import Basics
public import HTTPWire
public import NetCore

/// The open WebSocket connections of a route (or several), so the application can close them all on shutdown.
public final class WebSocketHub: Sendable {
    private let sockets = Locked<[ObjectIdentifier: WebSocket]>([:])
    /// Notified each time the last connection leaves.
    private let emptied = ChangeSignal()

    /// Creates an empty hub.
    public init() {}

    /// The number of open connections.
    public var count: Int { sockets.withLock { $0.count } }

    package func add(_ socket: WebSocket) { sockets.withLock { $0[ObjectIdentifier(socket)] = socket } }

    package func remove(_ socket: WebSocket) {
        let empty = sockets.withLock { sockets in
            sockets.removeValue(forKey: ObjectIdentifier(socket)) != nil && sockets.isEmpty
        }
        if empty { emptied.notify() }
    }

    /// Starts the closing handshake on every connection and waits until they have closed or `timeout` passed.
    /// - Parameters:
    ///   - code: The close code (1001 when the server is going away).
    ///   - reason: A short reason.
    ///   - timeout: The longest to wait.
    ///   - clock: What the timeout is measured by (the loops' clock).
    public func closeAll(
        code: WebSocketCloseCode = .goingAway, reason: String = "", timeout: Duration = .seconds(5),
        clock: LoopClock = .monotonic
    ) async {
        for socket in sockets.withLock({ Array($0.values) }) { socket.close(code: code, reason: reason) }
        let deadline = clock.deadline(after: timeout)
        _ = await emptied.wait(until: { count == 0 }, timeout: { try? await clock.sleep(until: deadline) })
    }
}
