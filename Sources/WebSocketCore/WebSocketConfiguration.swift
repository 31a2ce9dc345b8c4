public import HTTPWire

/// Limits and timers of WebSocket connections. Every field has a safe default.
public struct WebSocketConfiguration: Sendable {
    /// The largest message accepted, after decompression; larger ones close with 1009 (RFC 6455 §7.4.1).
    public var maxMessageBytes = 1 << 20
    /// The largest single frame accepted; checked from the frame header, before its payload is buffered.
    public var maxFrameBytes = 1 << 20
    /// How long outgoing bytes may wait while the peer takes none of them before the connection is dropped: reset,
    /// without a close frame (it could not be delivered), ``WebSocket/onClose`` getting no code (1006). Timed from
    /// the write that finds the socket full; bytes the peer takes from the kernel's buffer count as progress, so a
    /// reader of any pace is kept, while one that stops reading is let go even if it keeps sending.
    public var writeTimeout: Duration = .seconds(30)
    /// How often the server pings a quiet connection.
    public var pingInterval: Duration = .seconds(30)
    /// A connection silent (no frame of any kind) for this long is closed with 1001.
    public var idleTimeout: Duration = .seconds(90)
    /// How long to wait for the peer's close frame after sending ours before dropping the socket.
    public var closeTimeout: Duration = .seconds(5)
    /// permessage-deflate (RFC 7692): nil turns it off.
    public var compression: PerMessageDeflate.ServerConfiguration? = PerMessageDeflate.ServerConfiguration()
    /// Allowed `Origin` values; nil allows any (browsers send one, other clients often none).
    public var allowedOrigins: Set<String>?
    /// Whether ``WebSocket/request`` stays readable for the connection's whole life. Off, it is nil once the route's
    /// `onUpgrade` has returned, so that an open connection does not keep the handshake's headers (several hundred
    /// bytes each); turn it on for an endpoint whose connections read their request later.
    public var keepsRequest = false

    /// Creates the defaults.
    public init() {}
}
