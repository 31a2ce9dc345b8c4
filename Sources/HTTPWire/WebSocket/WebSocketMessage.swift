/// A complete WebSocket data message (RFC 6455 §5.6), reassembled and decompressed.
public enum WebSocketMessage: Equatable, Sendable {
    /// A text message; the payload was validated as UTF-8.
    case text(String)
    /// A binary message.
    case binary([UInt8])
}

extension WebSocketMessage {
    /// Calls `body` with a view of the message's bytes.
    /// - Parameter body: Reads the view; it must not keep it.
    /// - Returns: What `body` returns.
    public func withView<Result>(_ body: (WebSocketMessageView) throws -> Result) rethrows -> Result {
        switch self {
        case .text(var text):
            return try text.withUTF8 { try body(WebSocketMessageView(isText: true, bytes: UnsafeRawBufferPointer($0))) }
        case .binary(let bytes):
            return try bytes.withUnsafeBytes { try body(WebSocketMessageView(isText: false, bytes: $0)) }
        }
    }
}

/// A received message lent to its handler without a copy: the bytes (valid UTF-8 when ``isText``) are valid only
/// during the call that receives the view. ``message`` copies it.
public struct WebSocketMessageView {
    /// Whether it is a text message (then ``bytes`` are valid UTF-8).
    public let isText: Bool
    /// The payload; valid only during the call that receives the view.
    public let bytes: UnsafeRawBufferPointer

    /// Creates a view.
    /// - Parameters:
    ///   - isText: Whether it is a text message; `bytes` must then be valid UTF-8.
    ///   - bytes: The payload.
    public init(isText: Bool, bytes: UnsafeRawBufferPointer) {
        self.isText = isText
        self.bytes = bytes
    }

    /// An owned copy.
    public var message: WebSocketMessage {
        isText ? .text(String(decoding: bytes, as: UTF8.self)) : .binary(Array(bytes))
    }
}

@available(*, unavailable)
extension WebSocketMessageView: Sendable {}
