public import MotionCore

/// One stored session: who and when, its status, and its summary.
///
/// Wall-clock times (`startedAt`, `endedAt`) are Unix milliseconds (`Int64`): exact through every database and
/// cursor, and easy to turn into the ISO-8601 strings of REST bodies. Pose times inside ``summary`` stay in the
/// client's seconds.
public struct StoredSession: Sendable, Hashable {
    /// The id (server-made, sortable by creation time).
    public var id: SessionID
    /// The tenant that owns it; every read and write is scoped to one tenant.
    public var tenant: String
    /// Who did the exercise (an opaque label chosen by the client), if given.
    public var subject: String?
    /// Live, finished or abandoned.
    public var status: SessionStatus
    /// When the session started, Unix milliseconds (server clock).
    public var startedAt: Int64
    /// When it finished or was abandoned, Unix milliseconds (server clock); nil while live.
    public var endedAt: Int64?
    /// The summary: exercise, side, frames, counts, best, baseline, reps, fault counts and series.
    ///
    /// Sessions from ``SessionStore/list(_:)`` carry an empty series; ``SessionStore/series(id:tenant:)`` and
    /// ``SessionStore/session(id:tenant:)`` return it.
    public var summary: SessionSummary
    /// What resuming the session needs (a live WebSocket session's token digest and `start`): written by
    /// ``SessionStore/create(_:)``, read back only by ``SessionStore/resumePoint(id:tenant:)`` (nil in every other
    /// read).
    public var resumption: SessionResumption?
    /// The programme item it was started for (docs/protocol.md §5.3), if any.
    public var programme: ProgrammeLink?
    /// Whether it was a demonstration (a simulated person, not the subject): left out of adherence and progress
    /// unless asked for.
    public var demo: Bool

    /// Creates a stored session.
    /// - Parameters:
    ///   - id: The id.
    ///   - tenant: The owning tenant.
    ///   - subject: Who did the exercise.
    ///   - status: The status (a new session is `live`; a recorded one may be stored `finished` at once).
    ///   - startedAt: Start time, Unix milliseconds.
    ///   - endedAt: End time, Unix milliseconds; nil while live.
    ///   - summary: The summary so far.
    ///   - resumption: What resuming it needs, if it can be resumed.
    ///   - programme: The programme item it was started for.
    ///   - demo: Whether it was a demonstration.
    public init(
        id: SessionID, tenant: String, subject: String? = nil, status: SessionStatus = .live, startedAt: Int64,
        endedAt: Int64? = nil, summary: SessionSummary, resumption: SessionResumption? = nil,
        programme: ProgrammeLink? = nil, demo: Bool = false
    ) {
        self.programme = programme
        self.demo = demo
        self.resumption = resumption
        self.id = id
        self.tenant = tenant
        self.subject = subject
        self.status = status
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.summary = summary
    }

    /// The exercise id (from the summary).
    public var exercise: String { summary.exercise }

    /// The working side, if any (from the summary).
    public var side: BodySide? { summary.side }
}
