/// Where a ``RemoteMotionSession`` connects: parsed from `ws://host:port/path` or `wss://…`.
///
/// ```swift
/// let address = try ServerAddress("wss://10.0.0.7:8443")   // path /v1/stream
/// ```
public struct ServerAddress: Sendable, Hashable {
    /// Whether the connection uses TLS (`wss://`).
    public var isSecure: Bool
    /// The host: a name (resolved when connecting) or a numeric IPv4 or IPv6 address.
    public var host: String
    /// The port (default 80 for `ws://`, 443 for `wss://`).
    public var port: UInt16
    /// The request target; `/v1/stream` when the URL has no path.
    public var path: String

    /// Creates an address from its parts.
    /// - Parameters:
    ///   - isSecure: Whether to use TLS.
    ///   - host: A host name or numeric address.
    ///   - port: The port.
    ///   - path: The request target.
    public init(isSecure: Bool, host: String, port: UInt16, path: String = "/v1/stream") {
        self.isSecure = isSecure
        self.host = host
        self.port = port
        self.path = path
    }

    /// Parses a WebSocket URL.
    /// - Parameter url: `ws://` or `wss://`, a host (IPv6 in brackets), an optional port and path.
    /// - Throws: ``RemoteSessionError/invalidServer(_:)`` for any other form.
    public init(_ url: String) throws(RemoteSessionError) {
        let secure: Bool
        var rest: Substring
        if url.hasPrefix("ws://") {
            (secure, rest) = (false, url.dropFirst(5))
        } else if url.hasPrefix("wss://") {
            (secure, rest) = (true, url.dropFirst(6))
        } else {
            throw .invalidServer(url)
        }
        let authority = rest.prefix { $0 != "/" }
        rest = rest.dropFirst(authority.count)
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .invalidServer(url) }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .invalidServer(url) }
                portText = after.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else { throw .invalidServer(url) }
        var port: UInt16 = secure ? 443 : 80
        if let portText {
            guard let value = UInt16(portText), value > 0 else { throw .invalidServer(url) }
            port = value
        }
        isSecure = secure
        self.host = String(host)
        self.port = port
        path = rest.isEmpty ? "/v1/stream" : String(rest)
    }

    /// The address as a URL: `ws://host:port/path` or `wss://…`, an IPv6 host in brackets.
    public var url: String {
        let authority = host.contains(":") ? "[\(host)]" : host
        return "\(isSecure ? "wss" : "ws")://\(authority):\(port)\(path)"
    }
}
