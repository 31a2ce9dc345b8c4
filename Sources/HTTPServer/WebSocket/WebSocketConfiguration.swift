public import HTTPWire

/// Limits and timers of WebSocket connections. Every field has a safe default.
public struct WebSocketConfiguration: Sendable {
    /// The largest message accepted, after decompression; larger ones close with 1009 (RFC 6455 §7.4.1).
    public var maxMessageSize = 1 << 20
    /// The largest single frame accepted; checked from the frame header, before its payload is buffered.
    public var maxFrameSize = 1 << 20
    /// Unsent outgoing bytes beyond which a slow reader is disconnected (1008) rather than letting memory grow;
    /// replaceable messages are coalesced long before that.
    public var maxQueuedBytes = 4 << 20
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

    /// Creates the defaults.
    public init() {}
}
