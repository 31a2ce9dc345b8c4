/// A complete WebSocket data message (RFC 6455 §5.6), reassembled and decompressed.
public enum WebSocketMessage: Equatable, Sendable {
    /// A text message; the payload was validated as UTF-8.
    case text(String)
    /// A binary message.
    case binary([UInt8])
}
