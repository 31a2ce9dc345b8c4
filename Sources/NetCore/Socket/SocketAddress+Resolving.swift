import Glibc

extension SocketAddress {
    /// The addresses of `host`, best first: itself when it is numeric (or `localhost`), else what the system's
    /// resolver answers (`getaddrinfo`: `/etc/hosts`, DNS, and the older numeric forms such as `127.1`), in its
    /// order of preference (RFC 6724), without repeats. The lookup may block, so it runs off the event loops.
    /// - Parameters:
    ///   - host: A host name or numeric address (IPv6 with or without brackets).
    ///   - port: The port every address gets.
    /// - Returns: At least one address.
    /// - Throws: ``InvalidHost`` when the name has no IPv4 or IPv6 address.
    public static func resolve(host: String, port: UInt16) async throws(InvalidHost) -> [SocketAddress] {
        if let numeric = try? SocketAddress(host: host, port: port) { return [numeric] }
        let found = await BlockingIO.run { lookUp(host, port: port) }
        guard !found.isEmpty else { throw InvalidHost(host: host) }
        return found
    }

    private static func lookUp(_ host: String, port: UInt16) -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let list else { return [] }
        defer { freeaddrinfo(list) }
        var found: [SocketAddress] = []
        for entry in sequence(first: list, next: { $0.pointee.ai_next }) {
            guard let address = entry.pointee.ai_addr else { continue }
            var resolved: SocketAddress
            switch entry.pointee.ai_family {
            case AF_INET:
                var v4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }
                v4.sin_port = port.bigEndian
                resolved = SocketAddress(v4)
            case AF_INET6:
                var v6 = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee }
                v6.sin6_port = port.bigEndian
                resolved = SocketAddress(v6)
            default: continue
            }
            if !found.contains(resolved) { found.append(resolved) }
        }
        return found
    }
}
