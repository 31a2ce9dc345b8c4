public import HTTPWire
public import NetCore

/// Everything that shapes an ``HTTPServer``. Every field has a safe default.
public struct HTTPServerConfiguration: Sendable {
    /// The numeric address to listen on; `::` listens on IPv6 and IPv4 together.
    public var host = "127.0.0.1"
    /// The port; 0 takes a free one (read it from ``HTTPServer/start()``).
    public var port: UInt16 = 8080
    /// Event-loop threads; each has its own listening socket (`SO_REUSEPORT`) and epoll set.
    public var loops = System.coreCount
    /// The kernel accept queue per listening socket.
    public var backlog: Int32 = 1024
    /// Open connections beyond this are answered `503` and closed at once. The server keeps fewer when its file
    /// descriptors would not carry this many (``HTTPServer/maxConnections``).
    public var maxConnections = 10_000
    /// Open connections from one client address beyond this are answered `503` and closed at once; 0 (the default
    /// here, for servers behind a proxy, where every connection comes from the proxy's address) sets no bound. A
    /// server facing clients should set one well below ``maxConnections``, so that one client cannot hold them all.
    public var maxConnectionsPerAddress = 0
    /// Request size limits (URI, headers, body).
    public var limits = HTTPParserLimits()
    /// From a request's first byte to its complete head; slower clients get `408` (slow-loris protection). A new
    /// connection's first head counts from the accept: one that sends nothing is closed after this too.
    public var headTimeout: Duration = .seconds(10)
    /// From the head to the end of the body.
    public var bodyTimeout: Duration = .seconds(30)
    /// How long a keep-alive connection may sit idle between requests.
    public var idleTimeout: Duration = .seconds(60)
    /// How long a response may wait with unsent bytes and none of them taken by the client; then the connection
    /// is closed (a client that stops reading cannot hold a connection and its queued bytes forever).
    public var writeTimeout: Duration = .seconds(30)
    /// After a response that closes the connection, how long what the client still sends is read and dropped
    /// before closing (a lingering close: closing with unread input would reset the connection and could destroy
    /// the response before the client reads it, e.g. a 431 to a client still sending its oversized headers).
    public var lingeringTimeout: Duration = .seconds(2)
    /// The most input dropped around a closing response before the connection closes anyway (it then resets, and
    /// a client still sending may lose the response). Only what is read after that response began counts, so any
    /// request up to this size in total gets its error read, whatever the size of the reads that split it (a plain
    /// socket returns up to 64 KiB per read, TLS one record of at most 16 KiB). The default, 1 MiB, is the default
    /// body limit: a client sending a request as large as one the server accepts reads the 414, 431 or 400 that
    /// interrupts it. Dropping holds no memory (the loop's read buffer); this bound and ``lingeringTimeout`` still
    /// cut an endless sender off.
    public var maxLingeringBytes = 1024 * 1024
    /// What each connection may hold, HTTP or upgraded, plain or TLS: unparsed input (past it the connection is not
    /// read until parsing, or while a request is answered the response leaving, makes room), output not yet sent
    /// (a streaming response waits past it; a WebSocket peer that lets more wait is closed), and what the kernel
    /// holds unsent (`TCP_NOTSENT_LOWAT`).
    public var budget = ConnectionBudget()
    /// Responses at least this large are gzip-compressed when the client accepts it and the type compresses.
    public var compressionThreshold = 1024
    /// The least severe log level written.
    public var logLevel = LogLevel.info
    /// Writes the body of every error the server answers by itself or a handler throws as an ``HTTPError`` (`404`,
    /// `405`, a malformed request, `500` for an unexpected error): the application's error shape. Plain text by
    /// default.
    public var errorRenderer = HTTPErrorRenderer.plainText
    /// TLS for every accepted connection (HTTPS and WSS); nil serves plain HTTP. The handshake counts against
    /// ``headTimeout``. ``TLSContext/reload()`` changes the certificate for connections accepted afterwards.
    public var tls: TLSContext?
    /// What the event loops' timers, and so every timeout above, run by: the machine's clock, or a ``ManualClock``
    /// that a test moves.
    public var clock = LoopClock.monotonic

    /// Creates the default configuration.
    public init() {}
}
