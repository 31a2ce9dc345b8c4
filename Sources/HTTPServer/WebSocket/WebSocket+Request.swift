public import WebSocketCore

extension WebSocket {
    /// The request that opened the connection (server side), for its path, query and headers: set while the route's
    /// `onUpgrade` runs and nil afterwards, so that an open connection does not keep the handshake's headers (copy
    /// what the connection needs), unless ``WebSocketConfiguration/keepsRequest`` is on; nil on the client side.
    /// Read it on the loop thread.
    public var request: HTTPRequest? { (handshake as? HandshakeRequest)?.request }

    /// The handshake request, boxed so that a connection without one spends a single word on it.
    final class HandshakeRequest {
        let request: HTTPRequest

        init(_ request: HTTPRequest) { self.request = request }
    }
}
