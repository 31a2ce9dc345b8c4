public import HTTPServer
public import HTTPWire
public import Testing

/// Collects what a client socket receives, from its loop.
public final class Inbox: Sendable {
    private let state = Locked<(messages: [WebSocketMessage], close: (WebSocketCloseCode?, String)?)>(([], nil))
    private let arrivals: AsyncStream<Void>.Continuation
    /// One element per arrival.
    public let signals: AsyncStream<Void>

    /// Creates an empty inbox.
    public init() { (signals, arrivals) = AsyncStream.makeStream(of: Void.self) }

    /// Sets the socket's callbacks (on its loop) to collect into this inbox.
    public func attach(to socket: WebSocket) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            socket.loop.execute {
                socket.onMessage = { message in
                    let message = message.message
                    self.state.withLock { $0.messages.append(message) }
                    self.arrivals.yield()
                }
                socket.onClose = { code, reason in
                    self.state.withLock { $0.close = (code, reason) }
                    self.arrivals.yield()
                }
                done.resume()
            }
        }
    }

    /// Messages received so far.
    public var messages: [WebSocketMessage] { state.withLock { $0.messages } }
    /// The close code and reason, once closed.
    public var close: (WebSocketCloseCode?, String)? { state.withLock { $0.close } }

    /// Waits until `condition` holds (checked after every arrival), at most `timeout`: a test whose messages
    /// never come fails with a recorded issue instead of hanging the run.
    public func wait(
        timeout: Duration = .seconds(30), until condition: @escaping @Sendable (Inbox) -> Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        if await !arrival(within: timeout, until: condition) {
            Issue.record("no WebSocket message met the condition within \(timeout)", sourceLocation: sourceLocation)
        }
    }

    /// Waits until `condition` holds (checked after every arrival), at most `timeout`.
    /// - Returns: Whether it held in time.
    public func arrival(within timeout: Duration, until condition: @escaping @Sendable (Inbox) -> Bool) async -> Bool {
        if condition(self) { return true }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in self.signals where condition(self) { return true }
                return condition(self)
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}
