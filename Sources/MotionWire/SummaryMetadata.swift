public import MotionCore

/// What the server knows about a session beyond the engine's ``MotionCore/SessionSummary``: the fields of a
/// stored summary (docs/protocol.md §5) that the engine does not produce.
public struct SummaryMetadata: Sendable, Hashable {
    /// Where a session stands.
    public enum Status: String, Sendable, Hashable, CaseIterable {
        /// Still receiving poses.
        case live
        /// Ended by `stop`.
        case finished
        /// Ended any other way: the client vanished, the network dropped, the server shut down.
        case abandoned
    }

    /// The session id.
    public var id: String
    /// The client's opaque subject id, if `start` gave one.
    public var subject: String?
    /// Where the session stands.
    public var status: Status
    /// When the session started on the server's clock, Unix seconds.
    public var startedAt: Double
    /// When the session ended on the server's clock, Unix seconds; nil while live.
    public var endedAt: Double?
    /// Whether a client is attached to a live session: false while it waits for a `resume` (docs/protocol.md §3.1);
    /// nil once it has ended.
    public var connected: Bool?
    /// The programme item the session was started for (docs/protocol.md §5.3), if any.
    public var programme: ProgrammeLink?
    /// Whether the session is a demonstration.
    public var demo: Bool

    /// Creates metadata.
    /// - Parameters:
    ///   - id: The session id.
    ///   - subject: The client's subject id.
    ///   - status: Where the session stands.
    ///   - startedAt: Start time, Unix seconds.
    ///   - endedAt: End time, Unix seconds; nil while live.
    ///   - connected: Whether a client is attached, for a live session; nil once it ended.
    ///   - programme: The programme item it was started for.
    ///   - demo: Whether it is a demonstration.
    public init(
        id: String, subject: String? = nil, status: Status, startedAt: Double, endedAt: Double? = nil,
        connected: Bool? = nil, programme: ProgrammeLink? = nil, demo: Bool = false
    ) {
        self.programme = programme
        self.demo = demo
        self.id = id
        self.subject = subject
        self.status = status
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.connected = connected
    }
}
