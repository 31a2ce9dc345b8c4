/// Which end of a WebSocket connection this endpoint is; it decides the masking rules (RFC 6455 §5.1, §5.3).
public enum WebSocketRole: Sendable {
    /// The server: every frame received from the client must be masked, frames sent are not.
    case server
    /// The client: frames received from the server must not be masked, every frame sent is.
    case client
}
