public import HTTPServer
public import HTTPWire

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

    /// Waits until `condition` holds (checked after every arrival).
    public func wait(until condition: @Sendable (Inbox) -> Bool) async {
        if condition(self) { return }
        for await _ in signals where condition(self) { return }
    }
}
