/// Why a WebSocket connection must be failed (RFC 6455 §7.1.7), with the close code to send.
public enum WebSocketError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The peer violated the framing or messaging rules; closes with 1002. The string says which rule.
    case protocolError(String)
    /// A text message or close reason is not valid UTF-8 (RFC 6455 §8.1); closes with 1007.
    case invalidUTF8
    /// A compressed message could not be inflated (RFC 7692 §8); closes with 1007.
    case invalidPayload(String)
    /// A frame or message exceeds the configured size limit; closes with 1009.
    case messageTooBig

    /// The close code to send when failing the connection because of this error (RFC 6455 §7.4.1).
    public var closeCode: WebSocketCloseCode {
        switch self {
        case .protocolError: return .protocolError
        case .invalidUTF8, .invalidPayload: return .invalidPayload
        case .messageTooBig: return .messageTooBig
        }
    }

    /// A short description, suitable as a close reason (always well under 123 bytes).
    public var description: String {
        switch self {
        case .protocolError(let detail): return "protocol error: \(detail)"
        case .invalidUTF8: return "invalid UTF-8"
        case .invalidPayload(let detail): return "invalid payload: \(detail)"
        case .messageTooBig: return "message too big"
        }
    }
}
