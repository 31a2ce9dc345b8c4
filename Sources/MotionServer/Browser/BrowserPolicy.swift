import Glibc

/// Which requests a browser could have been made to send on a foreign page's behalf the server answers
/// (docs/protocol.md §6.2): the names a `Host` may give, and the origins whose pages may open a WebSocket.
///
/// A web page can make the user's browser send requests to a server on the user's loopback: through DNS
/// rebinding (the page's own name, `attacker.example`, made to resolve to `127.0.0.1`: the browser then sends
/// `Host: attacker.example` and lets the page read the answers) and by opening a WebSocket to it, which browsers
/// allow across origins and mark only with `Origin`. Without tokens the server trusts whoever reaches it, so it must
/// tell these requests apart: a `Host` must name the server, and a WebSocket handshake's `Origin`, when there is one,
/// must be the server's own or an allowed one.
///
/// Names are compared in lowercase, without the port and a trailing dot, IPv6 literals in brackets (`[::1]`);
/// origins in lowercase, whole (`scheme://host[:port]`).
struct BrowserPolicy: Sendable, Equatable {
    /// The loopback names a `Host` may always give.
    static let loopbackNames: Set<String> = ["localhost", "127.0.0.1", "[::1]"]
    /// Listening addresses that stand for every interface, and so name nothing.
    static let wildcardAddresses: Set<String> = ["0.0.0.0", "[::]"]

    /// The names a `Host` may give (normalised), or nil when any is taken (the server runs with tokens).
    var hostNames: Set<String>?
    /// The origins besides the server's own whose pages may open a WebSocket (normalised).
    var allowedOrigins: Set<String>

    /// The policy of a server started with `options`: host names are checked only without tokens; they are the
    /// loopback names, the listening address unless it is a wildcard, and `--allowed-hosts`.
    /// - Parameter options: The server's options (already validated by ``ServerOptions/parse(arguments:environment:)``
    ///   or set by code; names that do not normalise are left out).
    init(options: ServerOptions) {
        if options.tokensFile == nil {
            var names = Self.loopbackNames
            if let listening = Self.normalizedName(options.host), !Self.wildcardAddresses.contains(listening) {
                names.insert(listening)
            }
            names.formUnion(options.allowedHosts.compactMap(Self.normalizedName))
            hostNames = names
        } else {
            hostNames = nil
        }
        allowedOrigins = Set(options.allowedOrigins.compactMap(Self.normalizedOrigin))
    }

    /// Whether the server answers a request with this effective host (``HTTPRequestHead/host``: the Host field, or
    /// the authority of an absolute-form target).
    ///
    /// A request without one (HTTP/1.0 allows it; the parser refuses an HTTP/1.1 request without `Host`) is
    /// answered: every browser sends `Host`, so no page can make it send none.
    /// - Parameter host: The effective host, or nil.
    /// - Returns: True when it names the server, or when any name is taken.
    func admitsHost(_ host: String?) -> Bool {
        guard let hostNames, let host else { return true }
        return Self.name(ofAuthority: host).map(hostNames.contains) ?? false
    }

    /// Whether a WebSocket handshake with these `Origin` values may open (RFC 6455 §10.2: the server decides
    /// which origins it serves).
    ///
    /// None: a client that is no browser (browsers always send one), allowed. One that is the request's own
    /// authority (`Origin: https://host:port` for `Host: host:port`, whatever the scheme: TLS may end at a proxy) or
    /// one of ``allowedOrigins``: allowed. Anything else — `null` (a sandboxed frame, a `file:` page), a malformed
    /// value, two values — is refused.
    /// - Parameters:
    ///   - origins: Every `Origin` field value of the request.
    ///   - host: The request's effective host.
    /// - Returns: Whether the handshake may go on.
    func admitsOrigin(_ origins: [String], host: String?) -> Bool {
        guard let value = origins.first else { return true }
        guard origins.count == 1, let origin = Self.normalizedOrigin(value) else { return false }
        if allowedOrigins.contains(origin) { return true }
        guard let host, let separator = origin.firstRange(of: "://") else { return false }
        return origin[separator.upperBound...] == host.lowercased()
    }

    /// A name as ``hostNames`` holds it: lowercase, without one trailing dot, an IPv6 address canonical and in
    /// brackets; nil for
    /// what is no host name (empty, a port, a character no name has).
    /// - Parameter name: A host name or address, as `--allowed-hosts` or `--host` give it: `App.Example`,
    ///   `fd00::1`, `[fd00::1]`.
    static func normalizedName(_ name: String) -> String? {
        let lowered = name.lowercased()
        if lowered.hasPrefix("[") || lowered.contains(":") {
            let inside =
                lowered.hasPrefix("[") && lowered.hasSuffix("]") ? lowered.dropFirst().dropLast() : lowered[...]
            return canonicalIPv6(String(inside)).map { "[\($0)]" }
        }
        let trimmed = lowered.hasSuffix(".") ? lowered.dropLast() : lowered[...]
        guard !trimmed.isEmpty, trimmed.utf8.allSatisfy(isNameByte) else { return nil }
        return String(trimmed)
    }

    /// The name of an authority, `host[:port]` (RFC 3986 §3.2.2), as ``normalizedName(_:)`` gives it; nil when it is
    /// malformed (a port that is not digits, an IPv6 literal without brackets).
    /// - Parameter authority: A `Host` value.
    static func name(ofAuthority authority: String) -> String? {
        let host: Substring
        let rest: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            rest = authority[authority.index(after: close)...]
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            rest = authority[colon...]
        } else {
            host = authority[...]
            rest = ""
        }
        guard rest.isEmpty || (rest.first == ":" && rest.utf8.dropFirst().allSatisfy { (0x30...0x39).contains($0) })
        else { return nil }
        return normalizedName(String(host))
    }

    /// An origin as ``allowedOrigins`` holds it, `scheme://host[:port]` in lowercase (RFC 6454 §6.2); nil for
    /// anything else (`null`, a path, a user, a list).
    /// - Parameter value: An `Origin` value, or an `--allowed-origins` entry.
    static func normalizedOrigin(_ value: String) -> String? {
        let lowered = value.lowercased()
        guard let separator = lowered.firstRange(of: "://") else { return nil }
        let scheme = lowered[..<separator.lowerBound]
        let authority = lowered[separator.upperBound...]
        guard let first = scheme.utf8.first, (0x61...0x7A).contains(first), scheme.utf8.allSatisfy(isSchemeByte),
            !authority.isEmpty, name(ofAuthority: String(authority)) != nil, !authority.hasSuffix(":")
        else { return nil }
        return lowered
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"),
            UInt8(ascii: "."), UInt8(ascii: "_"):
            true
        default: false
        }
    }

    /// An IPv6 address (RFC 4291 §2.2) in its canonical text (RFC 5952: `0:0:0:0:0:0:0:1` is `::1`), as browsers
    /// write it in `Host`; nil for anything else.
    private static func canonicalIPv6(_ text: String) -> String? {
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"),
            UInt8(ascii: "-"), UInt8(ascii: "."):
            true
        default: false
        }
    }
}
