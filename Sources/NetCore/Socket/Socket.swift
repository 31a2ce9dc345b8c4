import CNetShim
import Glibc

/// Thin wrappers over the socket calls the server uses; every descriptor is non-blocking and close-on-exec.
public enum Socket {
    /// Opens a listening socket.
    /// - Parameters:
    ///   - address: Where to listen.
    ///   - backlog: The kernel's accept queue length.
    ///   - reusePort: Whether several sockets may listen on the same port (one per event loop).
    /// - Returns: The descriptor.
    /// - Throws: ``SystemError`` when a call fails.
    public static func listen(
        on address: SocketAddress, backlog: Int32 = 1024, reusePort: Bool
    ) throws(SystemError)
        -> Int32
    {
        let fd = socket(
            address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
            0)
        guard fd >= 0 else { throw SystemError.last("socket") }
        do throws(SystemError) {
            try setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
            if reusePort { try setOption(fd, SOL_SOCKET, SO_REUSEPORT, 1) }
            if address.family == AF_INET6 { try setOption(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, 0) }
            let bound = address.withSockAddr { bind(fd, $0, $1) }
            guard bound == 0 else { throw SystemError.last("bind \(address)") }
            guard Glibc.listen(fd, backlog) == 0 else { throw SystemError.last("listen") }
            return fd
        } catch {
            close(fd)
            throw error
        }
    }

    /// Checks that nothing listens on `address` now: a plain bind (`SO_REUSEADDR` only, so a previous run's
    /// connections in `TIME_WAIT` do not count) that is let go at once, without listening.
    ///
    /// `SO_REUSEPORT` lets any process of the same user join a port that is already listened on and take a share of
    /// its connections; a group of ``listen(on:backlog:reusePort:)`` sockets checks first, so that a second server
    /// on a taken port fails with `EADDRINUSE` instead of splitting the traffic with the first.
    /// - Parameter address: Where to listen (a port other than 0).
    /// - Throws: ``SystemError`` (`bind`, `EADDRINUSE` when something listens there).
    public static func ensureNotListenedOn(_ address: SocketAddress) throws(SystemError) {
        let fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError.last("socket") }
        defer { close(fd) }
        try setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
        if address.family == AF_INET6 { try setOption(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, 0) }
        let bound = address.withSockAddr { bind(fd, $0, $1) }
        guard bound == 0 else { throw SystemError.last("bind \(address)") }
    }

    /// The local address a socket is bound to.
    /// - Parameter fd: The socket.
    /// - Returns: The address, or nil when it cannot be read.
    public static func localAddress(_ fd: Int32) -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return result == 0 ? SocketAddress.from(storage) : nil
    }

    /// Accepts one pending connection, non-blocking.
    /// - Parameter fd: The listening socket.
    /// - Returns: The new descriptor (or -1 with errno) and the peer's address.
    package static func accept(_ fd: Int32) -> (fd: Int32, errno: Int32, peer: SocketAddress?) {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let client = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { cnet_accept(fd, $0, &length) }
        }
        guard client >= 0 else { return (client, cnet_errno(), nil) }
        return (client, 0, SocketAddress.from(storage))
    }

    /// What one non-blocking ``receive(_:into:)`` or ``send(_:_:)`` did.
    public enum IOResult: Equatable, Sendable {
        /// This many bytes moved (at least one).
        case transferred(Int)
        /// Nothing can move now; wait for readiness.
        case wouldBlock
        /// The peer closed its side (receiving only).
        case endOfStream
        /// The call failed with this errno; the connection is unusable.
        case failed(Int32)
    }

    /// Receives into `buffer` from a non-blocking stream socket (`recv`, which skips the file layer of `read`),
    /// retrying on EINTR.
    /// - Parameters:
    ///   - fd: The socket.
    ///   - buffer: Where the bytes go; must not be empty.
    /// - Returns: What happened.
    public static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        outcome(ofZero: .endOfStream) { recv(fd, buffer.baseAddress, buffer.count, 0) }
    }

    /// Sends from `bytes` on a non-blocking stream socket (`send` without SIGPIPE), retrying on EINTR; the socket may
    /// take fewer bytes than offered.
    /// - Parameters:
    ///   - fd: The socket.
    ///   - bytes: What to send; must not be empty.
    /// - Returns: What happened.
    public static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> IOResult {
        outcome(ofZero: .failed(EPIPE)) { Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Sends `first` then `second` with one call (`sendmsg`, without SIGPIPE), retrying on EINTR: a frame header and
    /// a payload that stays where it is. The socket may take fewer bytes than offered.
    /// - Parameters:
    ///   - fd: The socket.
    ///   - first: The first bytes.
    ///   - second: The bytes that follow; the two together must not be empty.
    /// - Returns: What happened; `.transferred` counts bytes of both.
    public static func send(_ fd: Int32, _ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) -> IOResult
    {
        var vectors = (
            iovec(iov_base: UnsafeMutableRawPointer(mutating: first.baseAddress), iov_len: first.count),
            iovec(iov_base: UnsafeMutableRawPointer(mutating: second.baseAddress), iov_len: second.count)
        )
        return withUnsafeMutableBytes(of: &vectors) { raw in
            var message = msghdr()
            message.msg_iov = raw.baseAddress?.assumingMemoryBound(to: iovec.self)
            message.msg_iovlen = 2
            return outcome(ofZero: .failed(EPIPE)) { sendmsg(fd, &message, Int32(MSG_NOSIGNAL)) }
        }
    }

    /// Runs a `recv`/`send`-style call until it is not interrupted, and says what it did.
    /// - Parameters:
    ///   - zero: What a return value of 0 means (end of stream for a receive; nothing sent, so a broken pipe).
    ///   - call: The call: bytes moved, or -1 with `errno` set.
    /// - Returns: What happened.
    private static func outcome(ofZero zero: IOResult, _ call: () -> Int) -> IOResult {
        while true {
            let count = call()
            if count > 0 { return .transferred(count) }
            if count == 0 { return zero }
            let error = cnet_errno()
            if error == EINTR { continue }
            return error == EAGAIN || error == EWOULDBLOCK ? .wouldBlock : .failed(error)
        }
    }

    /// Sets an integer socket option.
    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) throws(SystemError) {
        var value = value
        guard setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw SystemError.last("setsockopt(\(name))")
        }
    }

    /// Turns off Nagle's algorithm, so small responses leave at once.
    package static func setNoDelay(_ fd: Int32) { try? setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1) }

    /// Bounds the bytes the kernel holds unsent for a socket (`TCP_NOTSENT_LOWAT`): a send finds no room, and the
    /// socket is not reported writable, while `bytes` wait that the peer's window has not let go. What is in flight
    /// stays bounded by the peer's window, so a peer that stops reading stalls the sender after a few hundred KiB,
    /// not after megabytes of autotuned send buffer (and the work of producing them).
    package static func limitUnsent(_ fd: Int32, to bytes: Int) {
        try? setOption(fd, Int32(IPPROTO_TCP), TCP_NOTSENT_LOWAT, Int32(clamping: bytes))
    }

    /// Connects to `address` and waits for the connection (for clients and tests); the socket stays blocking.
    /// - Parameters:
    ///   - address: The server.
    ///   - receiveBufferSize: A fixed receive buffer in bytes (`SO_RCVBUF`, no autotuning), set before connecting so
    ///     that the window the peer is first offered respects it; nil leaves the kernel's default.
    ///   - source: The local address to connect from (e.g. another loopback address, `127.0.0.2`); nil lets the
    ///     kernel choose.
    /// - Returns: The connected descriptor.
    /// - Throws: ``SystemError`` when the connection fails.
    public static func connect(
        to address: SocketAddress, receiveBufferSize: Int32? = nil, from source: SocketAddress? = nil
    ) throws(SystemError) -> Int32 {
        let fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError.last("socket") }
        if let receiveBufferSize { try? setOption(fd, SOL_SOCKET, SO_RCVBUF, receiveBufferSize) }
        if let source, source.withSockAddr({ Glibc.bind(fd, $0, $1) }) != 0 {
            let error = SystemError.last("bind \(source)")
            close(fd)
            throw error
        }
        let result = address.withSockAddr { Glibc.connect(fd, $0, $1) }
        guard result == 0 else {
            let error = SystemError.last("connect \(address)")
            close(fd)
            throw error
        }
        setNoDelay(fd)
        return fd
    }
}
