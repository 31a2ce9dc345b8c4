import Basics
import CNetShim
import Glibc
public import HTTPWire
public import NetCore
public import WebSocketCore

/// Opens WebSocket connections (ws://, and wss:// with ``Options/tls``) from this process: for the load tool and
/// for tests.
///
/// ```swift
/// let socket = try await WebSocketClient.connect(host: "127.0.0.1", port: 8080, path: "/v1/echo", on: group.next())
/// socket.onMessage = { message in print(message.message) }
/// socket.send(.text("hello"))
/// ```
public enum WebSocketClient {
    /// What to ask for in the handshake.
    public struct Options: Sendable {
        /// Subprotocols offered, in order of preference.
        public var protocols: [String] = []
        /// Whether to offer permessage-deflate.
        public var compression = true
        /// Extra request headers (e.g. `Authorization`, `Origin`).
        public var headers = HTTPHeaders()
        /// Limits and timers of the connection once open.
        public var configuration = WebSocketConfiguration()
        /// What the connection may hold: its unsent output past ``ConnectionBudget/pendingOutputBytes`` fails it
        /// (1008), as a server's connections do.
        public var budget = ConnectionBudget()
        /// The longest the TCP connection and the handshakes (TLS and WebSocket) may take.
        public var timeout: Duration = .seconds(10)
        /// TLS for `wss://`: a client context (``TLSContext/client(certificateAuthorityFile:verifiesPeer:)``); the
        /// host is the name the certificate must carry. Nil connects in the clear (`ws://`).
        public var tls: TLSContext?
        /// Creates the defaults.
        public init() {}
    }

    /// Why a connection could not be opened.
    public enum ConnectError: Error, Equatable, Sendable {
        /// The host has no IPv4 or IPv6 address.
        case invalidHost(String)
        /// A socket call failed.
        case system(SystemError)
        /// The server answered the handshake with this status, or an invalid `101`.
        case handshakeRefused(status: Int, reason: String)
        /// The connection or the handshake took longer than the timeout.
        case timedOut
        /// The server closed the connection during the handshake.
        case closed
        /// The TLS handshake failed (OpenSSL's reason: an untrusted certificate, a name mismatch, …).
        case tlsFailed(String)
    }

    /// Connects and performs the opening handshake (RFC 6455 §4.1).
    /// - Parameters:
    ///   - host: A host name (resolved by ``SocketAddress/resolve(host:port:)``) or a numeric IPv4 or IPv6 address.
    ///     A name's addresses are tried in the resolver's order (``connect(to:host:path:options:on:)``).
    ///   - port: The port.
    ///   - path: The request target, e.g. `/v1/stream?x=1`.
    ///   - options: Subprotocols, compression, headers, limits.
    ///   - loop: The loop the connection will live on.
    /// - Returns: The open connection; set its callbacks right away (on its loop, or before the first await).
    /// - Throws: ``ConnectError``.
    public static func connect(
        host: String, port: UInt16, path: String = "/", options: Options = Options(), on loop: EventLoop
    ) async throws(ConnectError) -> WebSocket {
        let addresses: [SocketAddress]
        do {
            addresses = try await SocketAddress.resolve(host: host, port: port)
        } catch {
            throw .invalidHost(host)
        }
        return try await connect(to: addresses, host: host, path: path, options: options, on: loop)
    }

    /// Connects to the first of `addresses` that takes the connection, and performs the opening handshake there.
    ///
    /// The next address is tried only when one refuses the TCP connection or cannot be reached (a name with an IPv6
    /// and an IPv4 address, a server listening on one of them); a handshake that fails once connected (refused,
    /// TLS, the timeout) is final, since another address of the same server would answer the same.
    /// - Parameters:
    ///   - addresses: Where the server may be, in order; not empty.
    ///   - host: The server's name or address, for the `Host` header and the TLS certificate's name.
    ///   - path: The request target, e.g. `/v1/stream?x=1`.
    ///   - options: Subprotocols, compression, headers, limits.
    ///   - loop: The loop the connection will live on.
    /// - Returns: The open connection.
    /// - Throws: ``ConnectError``: the last address's when none took the connection.
    public static func connect(
        to addresses: [SocketAddress], host: String, path: String = "/", options: Options = Options(),
        on loop: EventLoop
    ) async throws(ConnectError) -> WebSocket {
        var failure = ConnectError.invalidHost(host)
        for address in addresses {
            switch await attempt(address, host: host, path: path, options: options, on: loop) {
            case .success(let socket):
                return socket
            case .failure(let error):
                guard case .system(let system) = error, system.call.hasPrefix("connect") else { throw error }
                failure = error
            }
        }
        throw failure
    }

    private static func attempt(
        _ address: SocketAddress, host: String, path: String, options: Options, on loop: EventLoop
    ) async -> Result<WebSocket, ConnectError> {
        let fd = socket(
            address.family,
            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(.system(SystemError.last("socket"))) }
        let result = address.withSockAddr { Glibc.connect(fd, $0, $1) }
        if result != 0 && cnet_errno() != EINPROGRESS {
            let error = SystemError.last("connect \(address)")
            Glibc.close(fd)
            return .failure(.system(error))
        }
        Socket.setNoDelay(fd)
        var random = SystemRandomNumberGenerator()
        let key = WebSocketHandshake.makeKey(using: &random)
        let offer = options.compression ? PerMessageDeflate.clientOffer() : nil
        let port = address.port
        var headers = WebSocketHandshake.clientRequestHeaders(
            host: host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)", key: key, protocols: options.protocols,
            extensions: offer)
        for (name, value) in options.headers { headers.add(name: name, value: value) }
        var request = Array("GET \(path) HTTP/1.1\r\n".utf8)
        for (name, value) in headers { request += Array("\(name): \(value)\r\n".utf8) }
        request += [13, 10]
        return await withCheckedContinuation { continuation in
            let handshake = ClientHandshake(
                fd: fd, loop: loop, host: host, request: request, key: key, options: options, offer: offer,
                continuation: continuation)
            loop.execute { handshake.start() }
        }
    }
}

/// Drives one client handshake on its loop: waits for the TCP connection, sends the request, reads the `101`.
private final class ClientHandshake: EventLoopHandler, @unchecked Sendable {
    // Safety: after init, used only on `loop`'s thread.
    let fd: Int32
    let loop: EventLoop
    /// The server's name or address, which its certificate must carry (wss).
    let host: String
    /// The socket, with TLS over it once the TCP connection is up (wss).
    var transport: Transport
    /// Whether the TLS handshake is still under way.
    var handshaking = false
    let request: [UInt8]
    let key: String
    let options: WebSocketClient.Options
    let offer: String?
    var continuation: CheckedContinuation<Result<WebSocket, WebSocketClient.ConnectError>, Never>?
    var sent = 0
    var received: [UInt8] = []
    var timer: LoopTimer?

    init(
        fd: Int32, loop: EventLoop, host: String, request: [UInt8], key: String, options: WebSocketClient.Options,
        offer: String?,
        continuation: CheckedContinuation<Result<WebSocket, WebSocketClient.ConnectError>, Never>
    ) {
        self.fd = fd
        self.loop = loop
        self.host = host
        transport = .plain(fd)
        self.request = request
        self.key = key
        self.options = options
        self.offer = offer
        self.continuation = continuation
    }

    func start() {
        do {
            try loop.register(fd, for: [.writable, .readable], handler: self)
        } catch {
            return fail(.system(error), registered: false)
        }
        timer = loop.schedule(after: options.timeout) { [weak self] in self?.fail(.timedOut) }
    }

    func handle(_ events: IOEvents) {
        if events.contains(.error) || events.contains(.hangup) {
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            return fail(error != 0 ? .system(SystemError(call: "connect", code: error)) : .closed)
        }
        if let tls = options.tls, transport.tls == nil {
            // The TCP connection is up (writable): TLS first.
            guard let stream = tls.makeStream(fd: fd, serverName: host) else {
                return fail(.tlsFailed("cannot create a TLS connection"))
            }
            transport = Transport(fd: fd, tls: stream)
            handshaking = true
        }
        if handshaking, let stream = transport.tls {
            switch stream.handshake() {
            case .done: handshaking = false
            case .wantsRead: return loop.modify(fd, for: [.readable])
            case .wantsWrite: return loop.modify(fd, for: [.writable])
            case .failed(let reason): return fail(.tlsFailed(reason))
            }
        }
        if sent < request.count || transport.hasPendingOutput { writeRequest() }
        if sent == request.count && !transport.hasPendingOutput { readResponse() }
    }

    private func writeRequest() {
        while sent < request.count || transport.hasPendingOutput {
            let offset = sent
            let result =
                offset < request.count
                ? request.withUnsafeBytes { transport.send(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
                : transport.flushPending()
            switch result {
            case .transferred(let count): sent += count
            case .wouldBlock: return loop.modify(fd, for: [.writable])
            case .endOfStream: return fail(.closed)
            case .failed(let error): return fail(.system(SystemError(call: "send", code: error)))
            }
        }
        loop.modify(fd, for: [.readable])
    }

    private func readResponse() {
        let buffer = loop.readBuffer
        while continuation != nil {
            switch transport.receive(into: buffer.bytes) {
            case .transferred(let count):
                received += UnsafeRawBufferPointer(start: buffer.pointer, count: count)
                guard received.count <= 64 * 1024 else {
                    return fail(.handshakeRefused(status: 0, reason: "head too large"))
                }
                if complete() { return }
            case .endOfStream: return fail(.closed)
            case .wouldBlock: return
            case .failed(let error): return fail(.system(SystemError(call: "recv", code: error)))
            }
        }
    }

    /// Parses and validates the response once its head is complete; returns whether the handshake ended.
    private func complete() -> Bool {
        let parsed: (HTTPResponseHead, Int)?
        do {
            parsed = try HTTPResponseHead.parse(received)
        } catch {
            fail(.handshakeRefused(status: 0, reason: "malformed response"))
            return true
        }
        guard let (head, used) = parsed else { return false }
        let validation = WebSocketHandshake.validateServerResponse(
            status: head.status.code, headers: head.headers, key: key, offeredProtocols: options.protocols)
        guard case .success(let response) = validation else {
            fail(.handshakeRefused(status: head.status.code, reason: "\(validation)"))
            return true
        }
        var parameters: PerMessageDeflate.Parameters?
        if let value = head.headers["Sec-WebSocket-Extensions"] {
            guard offer != nil, let accepted = PerMessageDeflate.acceptServerResponse(value) else {
                fail(.handshakeRefused(status: 101, reason: "unexpected extensions: \(value)"))
                return true
            }
            parameters = accepted
        }
        loop.cancel(timer)
        loop.deregister(fd)
        let socket = WebSocket(
            transport: transport, loop: loop, role: .client, handshake: nil, subprotocol: response.protocol,
            compression: parameters,
            settings: WebSocket.Settings(configuration: options.configuration, logger: Logger(level: .warning)),
            budget: options.budget, lifetime: nil)
        let leftover = Array(received[used...])
        continuation?.resume(returning: .success(socket))
        continuation = nil
        socket.start(leftover: leftover)
        return true
    }

    private func fail(_ error: WebSocketClient.ConnectError, registered: Bool = true) {
        guard let continuation else { return }
        self.continuation = nil
        loop.cancel(timer)
        if registered { loop.deregister(fd) }
        Glibc.close(fd)
        continuation.resume(returning: .failure(error))
    }
}
