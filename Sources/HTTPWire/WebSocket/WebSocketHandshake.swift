/// The WebSocket opening handshake (RFC 6455 §4): validating a client's upgrade request and building the `101`
/// answer on the server side; building the request and checking the answer on the client side
/// (see `WebSocketHandshake+Client.swift`).
public enum WebSocketHandshake {
    /// The GUID appended to the key before hashing (RFC 6455 §1.3, §4.2.2).
    public static let acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
    /// The only protocol version spoken, sent as `Sec-WebSocket-Version` (RFC 6455 §4.1, §4.4).
    public static let version = "13"

    /// The WebSocket facts of a valid client upgrade request (RFC 6455 §4.2.1).
    public struct ClientRequest: Equatable, Sendable {
        /// The `Sec-WebSocket-Key` value, as sent (base64 of 16 bytes).
        public var key: String
        /// The subprotocols offered in `Sec-WebSocket-Protocol`, in the client's order of preference.
        public var protocols: [String]
        /// The raw `Sec-WebSocket-Extensions` field values, in order; pass them to
        /// ``PerMessageDeflate/negotiate(offers:configuration:)``.
        public var extensions: [String]
        /// The `Origin` value sent by browsers (RFC 6455 §4.2.1, §10.2), if any.
        public var origin: String?

        /// Creates a request description.
        ///
        /// - Parameters:
        ///   - key: The `Sec-WebSocket-Key` value.
        ///   - protocols: The offered subprotocols.
        ///   - extensions: The raw `Sec-WebSocket-Extensions` values.
        ///   - origin: The `Origin` value.
        public init(key: String, protocols: [String] = [], extensions: [String] = [], origin: String? = nil) {
            self.key = key
            self.protocols = protocols
            self.extensions = extensions
            self.origin = origin
        }
    }

    /// Computes `Sec-WebSocket-Accept`: base64(SHA-1(key + GUID)) (RFC 6455 §4.2.2, step 5.4).
    ///
    /// - Parameter key: The client's `Sec-WebSocket-Key`, as sent.
    /// - Returns: The accept value, e.g. `s3pPLMBiTxaQ9kYGzzhZRbK+xOo=` for `dGhlIHNhbXBsZSBub25jZQ==`.
    public static func acceptValue(forKey key: String) -> String {
        Base64.encode(SHA1.hash(Array((key + acceptGUID).utf8)))
    }

    /// Validates a client's opening handshake (RFC 6455 §4.2.1).
    ///
    /// Requires: method `GET`; HTTP/1.1 or later; a `Host`; `Upgrade` containing the `websocket` token and
    /// `Connection` containing `upgrade` (both case-insensitive); `Sec-WebSocket-Version: 13`; exactly one
    /// `Sec-WebSocket-Key` that base64-decodes to 16 bytes; subprotocols, if any, that are distinct tokens.
    ///
    /// - Parameter head: The parsed request head.
    /// - Returns: The request's WebSocket facts, or the error whose ``HandshakeError/status`` to answer with.
    public static func validateClientRequest(_ head: HTTPRequestHead) -> Result<ClientRequest, HandshakeError> {
        let headers = head.headers
        guard head.method == .get else { return .failure(.methodNotGET) }
        guard head.version.major > 1 || (head.version.major == 1 && head.version.minor >= 1) else {
            return .failure(.unsupportedHTTPVersion)
        }
        guard head.host != nil || headers.contains(name: "Host") else { return .failure(.missingHost) }
        guard headers.contains(token: "websocket", in: "Upgrade") else { return .failure(.missingUpgrade) }
        guard headers.contains(token: "upgrade", in: "Connection") else {
            return .failure(.missingConnectionUpgrade)
        }
        // RFC 6455 §4.2.2 / §4.4: any other version is answered with 426 and the supported version.
        guard headers.tokens(in: "Sec-WebSocket-Version") == [version] else { return .failure(.unsupportedVersion) }
        let keys = headers.values(for: "Sec-WebSocket-Key")
        guard let key = keys.first else { return .failure(.missingKey) }
        // RFC 6455 §4.2.1, item 5: the key is a base64-encoded 16-byte nonce.
        guard keys.count == 1, Base64.decode(key)?.count == 16 else { return .failure(.invalidKey) }
        // RFC 6455 §4.1: subprotocol elements are tokens, each unique.
        let protocols = headers.tokens(in: "Sec-WebSocket-Protocol")
        guard protocols.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy(ASCII.isTokenChar) }),
            Set(protocols).count == protocols.count
        else { return .failure(.invalidProtocols) }
        return .success(
            ClientRequest(
                key: key, protocols: protocols, extensions: headers.values(for: "Sec-WebSocket-Extensions"),
                origin: headers["Origin"]))
    }

    /// The header fields of the `101 Switching Protocols` answer (RFC 6455 §4.2.2, step 5).
    ///
    /// - Parameters:
    ///   - request: The validated request.
    ///   - subprotocol: The chosen subprotocol, which must be one of `request.protocols`, or `nil`.
    ///   - extensions: The `Sec-WebSocket-Extensions` answer (e.g. from
    ///     ``PerMessageDeflate/negotiate(offers:configuration:)``), or `nil`.
    /// - Returns: `Upgrade`, `Connection`, `Sec-WebSocket-Accept` and the optional protocol and extension fields.
    public static func responseHeaders(
        accepting request: ClientRequest, protocol subprotocol: String?, extensions: String?
    ) -> HTTPHeaders {
        var headers: HTTPHeaders = [
            "Upgrade": "websocket",
            "Connection": "Upgrade",
            "Sec-WebSocket-Accept": acceptValue(forKey: request.key),
        ]
        if let subprotocol {
            headers.add(name: "Sec-WebSocket-Protocol", value: subprotocol)
        }
        if let extensions, !extensions.isEmpty {
            headers.add(name: "Sec-WebSocket-Extensions", value: extensions)
        }
        return headers
    }
}
