package import Glibc

/// An IPv4 or IPv6 address and port.
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    enum Storage {
        case v4(sockaddr_in)
        case v6(sockaddr_in6)
    }

    let storage: Storage

    /// Two addresses are equal when family, host and port are.
    public static func == (lhs: SocketAddress, rhs: SocketAddress) -> Bool { lhs.description == rhs.description }

    /// Hashes the textual form.
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) { hasher.combine(description) }

    /// Parses a numeric host (`127.0.0.1`, `::1`, `0.0.0.0`, `::`) or `localhost`, with a port.
    /// - Parameters:
    ///   - host: The host.
    ///   - port: The port; 0 asks the kernel for a free one.
    /// - Throws: ``SocketAddress/InvalidHost`` when the host is not numeric.
    public init(host: String, port: UInt16) throws(InvalidHost) {
        let host = host == "localhost" ? "127.0.0.1" : host
        let trimmed = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, trimmed, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            storage = .v4(v4)
            return
        }
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET6, trimmed, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            storage = .v6(v6)
            return
        }
        throw InvalidHost(host: host)
    }

    init(_ v4: sockaddr_in) { storage = .v4(v4) }
    init(_ v6: sockaddr_in6) { storage = .v6(v6) }

    /// A host that is not a numeric IPv4 or IPv6 address.
    public struct InvalidHost: Error, Equatable, Sendable {
        /// The host given.
        public var host: String
    }

    /// The port.
    public var port: UInt16 {
        switch storage {
        case .v4(let a): UInt16(bigEndian: a.sin_port)
        case .v6(let a): UInt16(bigEndian: a.sin6_port)
        }
    }

    /// The address family, `AF_INET` or `AF_INET6`.
    package var family: Int32 {
        switch storage {
        case .v4: AF_INET
        case .v6: AF_INET6
        }
    }

    /// The host part, numeric.
    public var host: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch storage {
        case .v4(var a): _ = inet_ntop(AF_INET, &a.sin_addr, &buffer, socklen_t(buffer.count))
        case .v6(var a): _ = inet_ntop(AF_INET6, &a.sin6_addr, &buffer, socklen_t(buffer.count))
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `127.0.0.1:8080` or `[::1]:8080`.
    public var description: String {
        if case .v6 = storage { return "[\(host)]:\(port)" }
        return "\(host):\(port)"
    }

    /// The address with another port.
    /// - Parameter port: The port.
    package func with(port: UInt16) -> SocketAddress {
        switch storage {
        case .v4(var a):
            a.sin_port = port.bigEndian
            return SocketAddress(a)
        case .v6(var a):
            a.sin6_port = port.bigEndian
            return SocketAddress(a)
        }
    }

    package func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        switch storage {
        case .v4(var a):
            return withUnsafePointer(to: &a) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        case .v6(var a):
            return withUnsafePointer(to: &a) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
    }

    /// Reads the address from a `sockaddr_storage`.
    static func from(_ storage: sockaddr_storage) -> SocketAddress? {
        var copy = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &copy) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { SocketAddress($0.pointee) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &copy) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { SocketAddress($0.pointee) }
            }
        default: return nil
        }
    }
}

extension SocketAddress {
    /// The host alone, as 128 bits (an IPv4 address as its IPv4-mapped IPv6 form, so `1.2.3.4` and
    /// `::ffff:1.2.3.4` are one host): a cheap key for counting connections per client.
    package struct Host: Hashable, Sendable {
        let high: UInt64
        let low: UInt64
    }

    /// This address's host (``Host``), without the port.
    package var hostKey: Host {
        switch storage {
        case .v4(let a):
            Host(high: 0, low: 0xffff_0000_0000 | UInt64(UInt32(bigEndian: a.sin_addr.s_addr)))
        case .v6(let a):
            withUnsafeBytes(of: a.sin6_addr) { bytes in
                Host(
                    high: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                    low: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
            }
        }
    }
}
