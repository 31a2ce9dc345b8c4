/// The lifecycle of one WebSocket connection — open, the closing handshake begun by either side, failing, closed
/// (RFC 6455 §7) — and its keep-alive decisions, with no I/O: the connection tells it what happened and does what it
/// answers.
///
/// Three rules shape it:
/// - after sending a close frame an endpoint sends no data and delivers no message, but still reads, to see the
///   peer's close frame (§5.5.1); frames after the peer's close frame are ignored;
/// - once both close frames have been exchanged, the server closes the TCP connection first (§7.1.1); the client
///   waits for that, or for its close timeout;
/// - a server that fails a connection while the peer may still be sending shuts its write side down and drops
///   what still arrives instead of closing at once, so the kernel does not answer that input with a reset that
///   destroys the close frame in flight (§7.1.7 and the lingering close of HTTP servers).
///
/// ```swift
/// var lifecycle = WebSocketLifecycle(role: .server)
/// lifecycle.close(code: .normal, reason: "")        // .sendClose(.normal, ""): queue it, arm the close timer
/// lifecycle.receivedClose(code: .normal, reason: "") // .finish: both close frames exchanged
/// ```
package struct WebSocketLifecycle: Sendable {
    /// What the connection must do.
    package enum Action: Equatable, Sendable {
        /// Queue a close frame with this code and reason, and arm the close timer (the connection finishes if the
        /// handshake has not completed in time).
        case sendClose(WebSocketCloseCode, reason: String)
        /// Shut the write side down and drop all input until the peer closes or the close timer fires.
        case shutdownWrite
        /// Close the socket: the connection is over.
        case finish
    }

    /// Where the connection is.
    package enum State: Equatable, Sendable {
        /// Messages flow both ways.
        case open
        /// Our close frame is queued or sent; the peer's has not arrived. `finishAfterFlush`: the connection is
        /// being failed, so it ends once the close frame has left.
        case closeSent(finishAfterFlush: Bool)
        /// The peer's close frame has arrived and ours is queued or sent. `finishAfterFlush`: the connection ends
        /// once our close frame has left (always for a server; a client waits for the server to close).
        case closeReceived(finishAfterFlush: Bool)
        /// A server failing the connection: its write side is shut down and input is dropped until the peer closes.
        case discarding
        /// The socket is closed.
        case closed
    }

    /// The peer's close frame: its code (nil when it had none) and reason.
    package struct PeerClose: Equatable, Sendable {
        package var code: WebSocketCloseCode?
        package var reason: String

        package init(code: WebSocketCloseCode?, reason: String) {
            self.code = code
            self.reason = reason
        }
    }

    /// What a keep-alive timer should do (``keepAlive(silentFor:pingInterval:idleTimeout:)``).
    package enum KeepAlive: Equatable, Sendable {
        /// Nothing now; check again after another interval.
        case wait
        /// Send a ping: the connection has been quiet for an interval.
        case ping
        /// Close with 1001: the peer has been silent for the idle timeout.
        case closeIdle
        /// Stop checking: the connection is closing or closed.
        case stop
    }

    package let role: WebSocketRole
    package private(set) var state = State.open
    /// The peer's close frame, once it has arrived.
    package private(set) var peerClose: PeerClose?

    /// A connection that has just opened.
    package init(role: WebSocketRole) {
        self.role = role
    }

    /// Whether data messages may still be sent and received messages delivered: no close frame has been sent.
    package var isOpen: Bool { state == .open }

    /// Whether received frames still matter: until the peer's close frame (frames after it are ignored).
    package var readsFrames: Bool {
        switch state {
        case .open, .closeSent: true
        case .closeReceived, .discarding, .closed: false
        }
    }

    /// Whether input is being dropped unread.
    package var discardsInput: Bool { state == .discarding }

    /// Whether the socket is closed.
    package var isClosed: Bool { state == .closed }

    /// The application, or the connection itself, starts the closing handshake. Idempotent.
    /// - Returns: `.sendClose` the first time; nil once a close frame has been sent.
    package mutating func close(code: WebSocketCloseCode, reason: String) -> Action? {
        guard state == .open else { return nil }
        state = .closeSent(finishAfterFlush: false)
        return .sendClose(code, reason: reason)
    }

    /// Fails the connection (a protocol violation, a message too big, a peer too slow): close frame, then the end
    /// of the connection once it has left (RFC 6455 §7.1.7).
    /// - Returns: `.sendClose` unless a close frame was already sent.
    package mutating func fail(code: WebSocketCloseCode, reason: String) -> Action? {
        switch state {
        case .open:
            state = .closeSent(finishAfterFlush: true)
            return .sendClose(code, reason: reason)
        case .closeSent:
            state = .closeSent(finishAfterFlush: true)
        case .closeReceived:
            state = .closeReceived(finishAfterFlush: true)
        case .discarding, .closed:
            break
        }
        return nil
    }

    /// The peer's close frame has arrived.
    /// - Returns: `.sendClose` echoing its code (RFC 6455 §5.5.1) when ours was not sent yet; `.finish` for a server
    ///   whose close frame was already sent (the handshake is complete); nothing otherwise.
    package mutating func receivedClose(code: WebSocketCloseCode?, reason: String) -> Action? {
        guard readsFrames else { return nil }
        peerClose = PeerClose(code: code, reason: reason)
        if state == .open {
            state = .closeReceived(finishAfterFlush: role == .server)
            return .sendClose(code ?? .normal, reason: "")
        }
        state = .closeReceived(finishAfterFlush: true)
        return role == .server ? .finish : nil
    }

    /// Every queued byte has left.
    /// - Returns: `.finish` when the connection was to end after its close frame; `.shutdownWrite` for a server
    ///   failing a peer that has not closed; nothing otherwise.
    package mutating func outputDrained() -> Action? {
        switch state {
        case .closeReceived(finishAfterFlush: true):
            return .finish
        case .closeSent(finishAfterFlush: true):
            guard role == .server else { return .finish }
            state = .discarding
            return .shutdownWrite
        case .open, .closeSent, .closeReceived, .discarding, .closed:
            return nil
        }
    }

    /// The socket has been closed (after `.finish`, the close timer, or a lost connection).
    /// - Returns: Whether it was open until now (the close is then reported once).
    package mutating func finished() -> Bool {
        guard state != .closed else { return false }
        state = .closed
        return true
    }

    /// What the keep-alive timer should do when it fires.
    /// - Parameters:
    ///   - silence: How long since the last byte from the peer.
    ///   - pingInterval: How often a quiet connection is pinged.
    ///   - idleTimeout: How long a silent peer is kept.
    package func keepAlive(silentFor silence: Duration, pingInterval: Duration, idleTimeout: Duration) -> KeepAlive {
        guard state == .open else { return .stop }
        if silence >= idleTimeout { return .closeIdle }
        return silence >= pingInterval ? .ping : .wait
    }
}
