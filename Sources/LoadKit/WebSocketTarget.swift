import Glibc
public import NetCore

/// Where load connections go: a `ws://` or `wss://` URL resolved to an IPv4 address, the extra request headers
/// and, for `wss://`, the TLS client context.
///
/// ```swift
/// var target = try WebSocketTarget(url: "wss://localhost:8443/v1/stream")
/// target.tls = try TLSContext.client(certificateAuthorityFile: "ca.pem")
/// ```
public struct WebSocketTarget: Sendable {
    /// The numeric IPv4 host (`localhost` becomes `127.0.0.1`).
    public let host: String
    /// The TCP port.
    public let port: UInt16
    /// The request target, `/` at least.
    public let path: String
    /// Whether the URL is `wss://`: the connections speak TLS, with ``tls``.
    public let usesTLS: Bool
    /// The name the server's certificate must carry, also sent as SNI when it is not numeric: the URL's host as
    /// written (`localhost` stays `localhost`). Change it to reach a server by address under its certificate name.
    public var serverName: String
    /// The TLS client context of a `wss://` target (``TLSContext/client(certificateAuthorityFile:verifiesPeer:)``);
    /// connections to a `wss://` target without one fail. Not used for `ws://`.
    public var tls: TLSContext?
    /// Extra handshake headers, such as `Authorization`.
    public var headers: [(String, String)] = []

    /// Why a URL was refused.
    public struct URLError: Error, CustomStringConvertible {
        /// What is wrong, for the command line.
        public let description: String
    }

    /// Parses `ws://HOST:PORT/PATH` or `wss://HOST:PORT/PATH` with a numeric IPv4 host or `localhost`. A `wss://`
    /// target still needs its ``tls`` context.
    /// - Parameter url: The URL text.
    /// - Throws: ``URLError`` for another scheme, a missing port or a host name.
    public init(url: String) throws(URLError) {
        let rest: Substring
        if url.hasPrefix("ws://") {
            usesTLS = false
            rest = url.dropFirst(5)
        } else if url.hasPrefix("wss://") {
            usesTLS = true
            rest = url.dropFirst(6)
        } else {
            throw URLError(description: "only ws:// and wss:// URLs are supported: \(url)")
        }
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        path = slash == rest.endIndex ? "/" : String(rest[slash...])
        let authority = rest[..<slash]
        guard let colon = authority.lastIndex(of: ":"), let number = UInt16(authority[authority.index(after: colon)...])
        else { throw URLError(description: "the URL needs a port: \(url)") }
        port = number
        serverName = String(authority[..<colon])
        let host = serverName == "localhost" ? "127.0.0.1" : serverName
        var probe = in_addr()
        guard inet_pton(AF_INET, host, &probe) == 1 else {
            throw URLError(description: "the host must be a numeric IPv4 address or localhost: \(host)")
        }
        self.host = host
    }

    /// The URL the connections go to (with the numeric host), for reports.
    public var url: String { "\(usesTLS ? "wss" : "ws")://\(hostHeader)\(path)" }

    /// The socket address to connect to.
    var address: sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        return address
    }

    /// The `Host` header value.
    var hostHeader: String { "\(host):\(port)" }
}
