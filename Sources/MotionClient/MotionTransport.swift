/// How a ``RemoteMotionSession`` opens its WebSocket connections: given to the session, so the library itself holds
/// no networking code and builds wherever Swift does. An Apple app gives one over `URLSessionWebSocketTask`
/// (docs/motion-client.md has a sketch); on Linux, `MotionClientLinux.EventLoopTransport` is the project's own
/// WebSocket client.
///
/// The session opens one connection at a time, and a new one after each drop, until it ends.
public protocol MotionTransport: Sendable {
    /// Opens a WebSocket connection: the TCP connection, TLS for `wss://`, and the opening handshake with
    /// `request`'s headers, all within `request.timeout`.
    /// - Parameter request: Where to connect, with what headers, TLS trust and timeout.
    /// - Returns: The open connection, delivering nothing until ``TransportConnection/start(onMessage:onClose:)``.
    /// - Throws: ``TransportError`` when the connection could not be opened.
    func connect(_ request: TransportRequest) async throws(TransportError) -> any TransportConnection
}

/// One open WebSocket connection of a ``MotionTransport``.
///
/// The session keeps no lock while it calls ``close(code:reason:)``, and expects no call back from ``send(_:)``:
/// it sends while holding its lock, so that the messages of several threads leave in the order they were queued.
public protocol TransportConnection: AnyObject, Sendable {
    /// Starts delivering what arrives, and returns once the callbacks are in place; the session sends its first
    /// message after that. A message or close that arrived earlier is delivered then, not lost.
    ///
    /// The callbacks are called one at a time, in order of arrival, never at once; `onClose` once, last.
    /// - Parameters:
    ///   - onMessage: Each whole message received.
    ///   - onClose: The connection closed, from either side or lost: the peer's close code (nil when it sent none:
    ///     a lost connection, RFC 6455's 1006) and reason.
    func start(
        onMessage: @escaping @Sendable (TransportMessage) -> Void,
        onClose: @escaping @Sendable (_ code: Int?, _ reason: String) -> Void
    ) async

    /// Queues a message, from any thread, and returns at once without calling back; messages leave in the order of
    /// the calls. Nothing once the connection is closing.
    /// - Parameter message: A text or binary message.
    func send(_ message: TransportMessage)

    /// Starts the closing handshake (RFC 6455 §7), from any thread; `onClose` follows once it ends, possibly before
    /// this returns. Nothing once the connection is closing.
    /// - Parameters:
    ///   - code: The close code: 1000 normal, 1001 going away, 1002 protocol error.
    ///   - reason: A short reason, possibly empty.
    func close(code: Int, reason: String)
}

/// What a ``MotionTransport`` is asked to open.
public struct TransportRequest: Sendable {
    /// The server: `wss://` when ``ServerAddress/isSecure``, host, port and request target.
    public var address: ServerAddress
    /// Extra request headers for the opening handshake, in order (`Authorization: Bearer …` with a token).
    public var headers: [(name: String, value: String)]
    /// The longest the TCP connection and the TLS and WebSocket handshakes may take together.
    public var timeout: Duration
    /// PEM certificate authorities to verify a `wss://` server with; nil trusts the system's.
    public var certificateAuthorityFile: String?
    /// Whether to verify a `wss://` server's certificate and name.
    public var verifiesPeer: Bool

    /// Creates a request.
    /// - Parameters:
    ///   - address: The server.
    ///   - headers: Extra request headers.
    ///   - timeout: The longest the connection and its handshakes may take.
    ///   - certificateAuthorityFile: PEM certificate authorities for `wss://`; nil for the system's.
    ///   - verifiesPeer: Whether to verify a `wss://` server.
    public init(
        address: ServerAddress, headers: [(name: String, value: String)] = [], timeout: Duration = .seconds(10),
        certificateAuthorityFile: String? = nil, verifiesPeer: Bool = true
    ) {
        self.address = address
        self.headers = headers
        self.timeout = timeout
        self.certificateAuthorityFile = certificateAuthorityFile
        self.verifiesPeer = verifiesPeer
    }

    /// The URL to open: `ws://host:port/path` or `wss://…` (an IPv6 host in brackets).
    public var url: String { address.url }
}

/// One WebSocket message, either way.
public enum TransportMessage: Sendable, Equatable {
    /// A text message.
    case text(String)
    /// A binary message.
    case binary([UInt8])
}

/// Why a ``MotionTransport`` could not open a connection.
public enum TransportError: Error, Equatable, Sendable {
    /// The host has no address.
    case invalidHost(String)
    /// The system refused: the connection was refused or the network unreachable (the system's description).
    case system(String)
    /// The server answered the handshake with this status, or an invalid `101`.
    case handshakeRefused(status: Int, reason: String)
    /// The connection or the handshakes took longer than the timeout.
    case timedOut
    /// The server closed the connection during the handshake.
    case closed
    /// The TLS handshake failed: an untrusted certificate, a name mismatch, … (the transport's reason).
    case tlsFailed(String)
}
