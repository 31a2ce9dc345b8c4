extension WebSocketHandshake {
    /// The WebSocket facts of a valid server answer (RFC 6455 §4.1).
    public struct ServerResponse: Equatable, Sendable {
        /// The subprotocol the server chose (one of the offered ones), or `nil`.
        public var `protocol`: String?
        /// The raw `Sec-WebSocket-Extensions` answer (repeated fields joined with `", "`), or `nil`; check it with
        /// ``PerMessageDeflate/acceptServerResponse(_:offered:)``.
        public var extensions: String?

        /// Creates a response description.
        ///
        /// - Parameters:
        ///   - protocol: The chosen subprotocol.
        ///   - extensions: The raw extensions answer.
        public init(protocol: String? = nil, extensions: String? = nil) {
            self.protocol = `protocol`
            self.extensions = extensions
        }
    }

    /// Makes a fresh `Sec-WebSocket-Key`: 16 random bytes, base64-encoded (RFC 6455 §4.1, item 7).
    ///
    /// - Parameter generator: The random source; use a cryptographically secure one (the default generator is).
    /// - Returns: A 24-character key.
    public static func makeKey<G: RandomNumberGenerator>(using generator: inout G) -> String {
        var nonce: [UInt8] = []
        nonce.reserveCapacity(16)
        for _ in 0..<2 {
            let word = generator.next()
            for shift in stride(from: 56, through: 0, by: -8) {
                nonce.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        return Base64.encode(nonce)
    }

    /// Makes a fresh `Sec-WebSocket-Key` with the system's secure random generator.
    ///
    /// - Returns: A 24-character key.
    public static func makeKey() -> String {
        var generator = SystemRandomNumberGenerator()
        return makeKey(using: &generator)
    }

    /// The header fields of a client's opening handshake (RFC 6455 §4.1); send them with `GET <path> HTTP/1.1`.
    ///
    /// - Parameters:
    ///   - host: The `Host` value (host and, when not the default, port).
    ///   - key: A fresh key from ``makeKey(using:)``.
    ///   - protocols: The subprotocols to offer, most preferred first; none when empty.
    ///   - extensions: The `Sec-WebSocket-Extensions` offer (e.g. ``PerMessageDeflate/clientOffer(_:)``), or `nil`.
    /// - Returns: `Host`, `Upgrade`, `Connection`, `Sec-WebSocket-Key`, `Sec-WebSocket-Version` and the optional
    ///   fields.
    public static func clientRequestHeaders(
        host: String, key: String, protocols: [String], extensions: String?
    ) -> HTTPHeaders {
        var headers: HTTPHeaders = [
            "Host": host,
            "Upgrade": "websocket",
            "Connection": "Upgrade",
            "Sec-WebSocket-Key": key,
            "Sec-WebSocket-Version": version,
        ]
        if !protocols.isEmpty {
            headers.add(name: "Sec-WebSocket-Protocol", value: protocols.joined(separator: ", "))
        }
        if let extensions, !extensions.isEmpty {
            headers.add(name: "Sec-WebSocket-Extensions", value: extensions)
        }
        return headers
    }

    /// Validates the server's answer to a client handshake (RFC 6455 §4.1, the client's checks 1–6).
    ///
    /// Requires status 101, `Upgrade: websocket` and `Connection: upgrade` (case-insensitive tokens), exactly one
    /// `Sec-WebSocket-Accept` equal to ``acceptValue(forKey:)``, and at most one `Sec-WebSocket-Protocol` naming
    /// an offered subprotocol. Extensions are returned raw for the caller to check against its offer.
    ///
    /// - Parameters:
    ///   - status: The response status code.
    ///   - headers: The response header fields.
    ///   - key: The key the client sent.
    ///   - offeredProtocols: The subprotocols the client offered.
    /// - Returns: The agreed subprotocol and raw extensions, or why the client must fail the connection.
    public static func validateServerResponse(
        status: Int, headers: HTTPHeaders, key: String, offeredProtocols: [String]
    ) -> Result<ServerResponse, HandshakeError> {
        guard status == 101 else { return .failure(.unexpectedStatus(status)) }
        guard headers.contains(token: "websocket", in: "Upgrade") else { return .failure(.missingUpgrade) }
        guard headers.contains(token: "upgrade", in: "Connection") else {
            return .failure(.missingConnectionUpgrade)
        }
        guard headers.values(for: "Sec-WebSocket-Accept") == [acceptValue(forKey: key)] else {
            return .failure(.invalidAccept)
        }
        var response = ServerResponse()
        let protocols = headers.values(for: "Sec-WebSocket-Protocol")
        if !protocols.isEmpty {
            // RFC 6455 §4.1, client check 6: a subprotocol the client did not offer fails the connection.
            guard protocols.count == 1, offeredProtocols.contains(protocols[0]) else {
                return .failure(.unexpectedProtocol(protocols.joined(separator: ", ")))
            }
            response.protocol = protocols[0]
        }
        let extensions = headers.values(for: "Sec-WebSocket-Extensions")
        if !extensions.isEmpty {
            response.extensions = extensions.joined(separator: ", ")
        }
        return .success(response)
    }
}
