public import NetCore

/// A connection handed over after `101 Switching Protocols`: the socket (and TLS over it), its loop, and the bytes
/// the client already sent past the HTTP request. The new owner registers its own handler with `loop` and closes
/// the transport.
public struct UpgradedConnection: @unchecked Sendable {
    // Safety: the descriptor is owned by exactly one party at a time; the HTTP connection deregisters it
    // before handing it over, and the receiver uses it only on `loop`.

    /// The connection's byte stream, non-blocking, no longer registered with the loop.
    public let transport: Transport
    /// The socket.
    public var fd: Int32 { transport.fd }
    /// The loop the socket belongs to; use it from its own thread only.
    public let loop: EventLoop
    /// Bytes received after the request head (the new protocol's first bytes).
    public let leftover: [UInt8]
    /// The request that asked for the upgrade.
    public let request: HTTPRequest
    /// Lets the server count the connection until the new owner closes it.
    public let lifetime: ConnectionLifetime
    /// What the connection may hold, as it did before the upgrade (``HTTPServerConfiguration/budget``): the new
    /// owner charges it against the same budget.
    public let budget: ConnectionBudget
}
