/// What a store keeps of a live WebSocket session so that it can be resumed after its connection dropped, on this
/// process or after a restart (docs/protocol.md §3.1): the digest of its resume token and the `start` it began with.
///
/// The token itself is never stored: only its SHA-256, compared in constant time by the server.
public struct SessionResumption: Sendable, Hashable {
    /// SHA-256 of the resume token.
    public var tokenDigest: [UInt8]
    /// The session's `start` request as the application encodes it, opaque here.
    public var start: String

    /// Creates a resumption record.
    /// - Parameters:
    ///   - tokenDigest: SHA-256 of the resume token.
    ///   - start: The encoded `start` request.
    public init(tokenDigest: [UInt8], start: String) {
        self.tokenDigest = tokenDigest
        self.start = start
    }
}

/// Everything needed to continue a session from the store (``SessionStore/resumePoint(id:tenant:)``).
public struct ResumePoint: Sendable {
    /// The session with its reps and series as of its last write.
    public var session: StoredSession
    /// Its token digest and `start`; nil for sessions that cannot be resumed (driven over HTTP, or stored before
    /// resuming existed).
    public var resumption: SessionResumption?
    /// The engine's state at the last checkpoint (without the series, which ``session`` carries), and the
    /// timestamp of the last pose it covers; nil when none was kept (no checkpoint yet, or the session ended).
    public var engineState: (state: [UInt8], t: Double?)?
    /// When the session was last written, Unix milliseconds (store clock).
    public var updatedAt: Int64
    /// The node that holds it (docs/protocol.md §8); nil when none does (released, or stored before nodes existed).
    public var holder: String?

    /// Creates a resume point.
    public init(
        session: StoredSession, resumption: SessionResumption?, engineState: (state: [UInt8], t: Double?)?,
        updatedAt: Int64, holder: String? = nil
    ) {
        self.session = session
        self.resumption = resumption
        self.engineState = engineState
        self.updatedAt = updatedAt
        self.holder = holder
    }
}

/// A live session as a new process finds it in the store (``SessionStore/liveSessions()``): left by a process that
/// stopped or died, resumable until its window passes.
public struct LiveSessionEntry: Sendable, Hashable {
    /// The session.
    public var id: SessionID
    /// Its tenant.
    public var tenant: String
    /// When it was last written, Unix milliseconds (store clock).
    public var updatedAt: Int64
    /// SHA-256 of its resume token; nil for a session that cannot be resumed.
    public var tokenDigest: [UInt8]?
    /// The node that holds it; nil when none does.
    public var holder: String?

    /// Creates an entry.
    public init(id: SessionID, tenant: String, updatedAt: Int64, tokenDigest: [UInt8]?, holder: String? = nil) {
        self.id = id
        self.tenant = tenant
        self.updatedAt = updatedAt
        self.tokenDigest = tokenDigest
        self.holder = holder
    }
}
