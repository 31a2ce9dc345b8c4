import MotionCore

/// What a ``RemoteMotionSession`` knows, guarded by its lock.
struct ClientState: Sendable {
    var outbox: Outbox
    /// The open connection, from its handshake until its close.
    var connection: (any TransportConnection)?
    /// Whether the server answered `start` or `resume` on ``connection``: queued entries may be sent.
    var ready = false
    var sessionID: String?
    var resumeToken: String?
    /// Whether poses go as binary frames (the server is v2 and the configuration allows it).
    var binary = false
    var firstPoseTime: Double?
    var stopRequested = false
    /// Whether `stop` went out on the current connection.
    var stopSent = false
    /// The summary the server stored: received, then confirmed by the close 1000 that follows it.
    var summary: SessionSummary?
    /// The summary received, until the close that follows it says whether it was stored (docs/protocol.md §3).
    var receivedSummary: SessionSummary?
    var failure: RemoteSessionError?
    typealias Waiters = (
        ready: [CheckedContinuation<Result<Void, RemoteSessionError>, Never>],
        stop: [CheckedContinuation<Result<SessionSummary, RemoteSessionError>, Never>]
    )
    var readyWaiters: [CheckedContinuation<Result<Void, RemoteSessionError>, Never>] = []
    var stopWaiters: [CheckedContinuation<Result<SessionSummary, RemoteSessionError>, Never>] = []
    /// How many times the server answered `start` or `resume`.
    var readyCount = 0
    /// The background task that opens (and reopens) connections.
    var driver: Task<Void, Never>?
    /// A pose provider's reader (``RemoteMotionSession/start(with:)``).
    var reader: Task<Void, Never>?

    init(capacity: Int) { outbox = Outbox(capacity: capacity) }

    /// Whether the session ended: summary received or failed.
    var isOver: Bool { summary != nil || failure != nil }
}

/// The session's listeners: event streams and connection-event streams.
struct Listeners: Sendable {
    var next: UInt64 = 0
    var events: [UInt64: AsyncStream<MotionEvent>.Continuation] = [:]
    var connection: [UInt64: AsyncStream<ConnectionEvent>.Continuation] = [:]

    mutating func add(events continuation: AsyncStream<MotionEvent>.Continuation) -> UInt64 {
        defer { next += 1 }
        events[next] = continuation
        return next
    }

    mutating func add(connection continuation: AsyncStream<ConnectionEvent>.Continuation) -> UInt64 {
        defer { next += 1 }
        connection[next] = continuation
        return next
    }
}
