extension WebSocketHandshake {
    /// Why an opening handshake was refused (server side) or is invalid (client side).
    public enum HandshakeError: Error, Equatable, Sendable, CustomStringConvertible {
        /// The request method is not `GET` (RFC 6455 §4.1, item 2).
        case methodNotGET
        /// The request is not HTTP/1.1 or later (RFC 6455 §4.1, item 2).
        case unsupportedHTTPVersion
        /// The request has no `Host` (RFC 6455 §4.1, item 4).
        case missingHost
        /// `Upgrade` lacks the `websocket` token (RFC 6455 §4.1 item 5, §4.1 client check 2).
        case missingUpgrade
        /// `Connection` lacks the `upgrade` token (RFC 6455 §4.1 item 6, §4.1 client check 3).
        case missingConnectionUpgrade
        /// `Sec-WebSocket-Version` is missing or not `13`; answered with 426 and `Sec-WebSocket-Version: 13`
        /// (RFC 6455 §4.2.2, §4.4).
        case unsupportedVersion
        /// `Sec-WebSocket-Key` is missing (RFC 6455 §4.1, item 7).
        case missingKey
        /// `Sec-WebSocket-Key` is repeated or does not base64-decode to 16 bytes (RFC 6455 §4.1, item 7).
        case invalidKey
        /// `Sec-WebSocket-Protocol` holds a non-token or a duplicate (RFC 6455 §4.1, item 10).
        case invalidProtocols
        /// Client side: the server answered with a status other than 101 (RFC 6455 §4.1, client check 1).
        case unexpectedStatus(Int)
        /// Client side: `Sec-WebSocket-Accept` is missing or wrong (RFC 6455 §4.1, client check 4).
        case invalidAccept
        /// Client side: the server chose a subprotocol the client did not offer (RFC 6455 §4.1, client check 6).
        case unexpectedProtocol(String)

        /// The status a server answers with: 426 (Upgrade Required) for ``unsupportedVersion``, otherwise
        /// 400 (Bad Request). Client-side errors also report 400; there it is informational only.
        public var status: HTTPStatus {
            self == .unsupportedVersion ? .upgradeRequired : .badRequest
        }

        /// Header fields the refusal must carry: `Sec-WebSocket-Version: 13` for ``unsupportedVersion``
        /// (RFC 6455 §4.4), none otherwise.
        public var responseHeaders: HTTPHeaders {
            self == .unsupportedVersion ? ["Sec-WebSocket-Version": WebSocketHandshake.version] : HTTPHeaders()
        }

        /// A short explanation.
        public var description: String {
            switch self {
            case .methodNotGET: return "WebSocket handshake requires GET"
            case .unsupportedHTTPVersion: return "WebSocket handshake requires HTTP/1.1 or later"
            case .missingHost: return "missing Host"
            case .missingUpgrade: return "Upgrade must contain websocket"
            case .missingConnectionUpgrade: return "Connection must contain upgrade"
            case .unsupportedVersion: return "Sec-WebSocket-Version must be 13"
            case .missingKey: return "missing Sec-WebSocket-Key"
            case .invalidKey: return "Sec-WebSocket-Key must be base64 of 16 bytes"
            case .invalidProtocols: return "invalid Sec-WebSocket-Protocol"
            case .unexpectedStatus(let code): return "expected status 101, got \(code)"
            case .invalidAccept: return "missing or wrong Sec-WebSocket-Accept"
            case .unexpectedProtocol(let name): return "server chose a subprotocol that was not offered: \(name)"
            }
        }
    }
}
