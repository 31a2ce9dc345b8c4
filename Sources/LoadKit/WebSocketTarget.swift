import Glibc

/// Where load connections go: a `ws://` URL resolved to an IPv4 address, and the extra request headers.
public struct WebSocketTarget: Sendable {
    /// The numeric IPv4 host (`localhost` becomes `127.0.0.1`).
    public let host: String
    /// The TCP port.
    public let port: UInt16
    /// The request target, `/` at least.
    public let path: String
    /// Extra handshake headers, such as `Authorization`.
    public var headers: [(String, String)] = []

    /// Why a URL was refused.
    public struct URLError: Error, CustomStringConvertible {
        /// What is wrong, for the command line.
        public let description: String
    }

    /// Parses `ws://HOST:PORT/PATH` with a numeric IPv4 host or `localhost`.
    /// - Parameter url: The URL text.
    /// - Throws: ``URLError`` for another scheme, a missing port or a host name.
    public init(url: String) throws(URLError) {
        guard url.hasPrefix("ws://") else {
            throw URLError(description: "only ws:// URLs are supported (TLS is not built): \(url)")
        }
        let rest = url.dropFirst(5)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        path = slash == rest.endIndex ? "/" : String(rest[slash...])
        let authority = rest[..<slash]
        guard let colon = authority.lastIndex(of: ":"), let number = UInt16(authority[authority.index(after: colon)...])
        else { throw URLError(description: "the URL needs a port: \(url)") }
        port = number
        var host = String(authority[..<colon])
        if host == "localhost" { host = "127.0.0.1" }
        var probe = in_addr()
        guard inet_pton(AF_INET, host, &probe) == 1 else {
            throw URLError(description: "the host must be a numeric IPv4 address or localhost: \(host)")
        }
        self.host = host
    }

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
