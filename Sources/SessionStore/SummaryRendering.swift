public import MotionCore

/// How a store keeps each ended session's summary rendered in the application's wire form beside its columns, so a
/// listing copies it instead of decoding the row and its reps and encoding them again.
///
/// The store writes the rendering when a session ends, and never reads inside it: with the final summary (a session
/// created ended, or ended by ``SessionStore/finish(id:tenant:summary:status:endedAt:)``), or, for a session
/// abandoned without one (``SessionStore/abandon(id:tenant:)``, ``SessionStore/abandonLiveSessions(updatedBefore:except:)``),
/// from the last checkpoint's summary it keeps. A live session has none (its summary changes with every checkpoint),
/// nor has one stored before renderings were kept: a listing reads those whole, until
/// ``SessionStore/renderSummaries(after:limit:)`` renders the latter. A rendering of another ``version`` than the
/// store's is not used either.
public struct SummaryRendering: Sendable {
    /// The version of what ``render`` writes: a change to its bytes must come with a new version.
    public var version: Int
    /// Renders a summary (without its series, which a listing leaves out).
    public var render: @Sendable (SessionSummary) -> [UInt8]

    /// Creates a rendering.
    /// - Parameters:
    ///   - version: The version of what `render` writes.
    ///   - render: Renders a summary.
    public init(version: Int, render: @escaping @Sendable (SessionSummary) -> [UInt8]) {
        self.version = version
        self.render = render
    }

    /// The rendering a session's final write stores with it: its summary rendered when it has ended, nil while live.
    func rendered(_ summary: SessionSummary, status: SessionStatus) -> [UInt8]? {
        status == .live ? nil : render(summary)
    }
}

/// A session of a listing page (``SessionStore/list(_:)``).
public enum ListedSession: Sendable, Hashable {
    /// Read whole: its row and its reps (the series left out).
    case read(StoredSession)
    /// Its row, and its summary as the store's ``SummaryRendering`` rendered it in place of the summary.
    case rendered(RenderedSession)

    /// The session's id.
    public var id: SessionID {
        switch self {
        case .read(let session): session.id
        case .rendered(let session): session.id
        }
    }

    /// When the session started, Unix milliseconds.
    public var startedAt: Int64 {
        switch self {
        case .read(let session): session.startedAt
        case .rendered(let session): session.startedAt
        }
    }
}

/// An ended session of a listing whose summary the store kept rendered (``SummaryRendering``).
public struct RenderedSession: Sendable, Hashable {
    /// The session's id.
    public var id: SessionID
    /// Its tenant.
    public var tenant: String
    /// Its subject, if any.
    public var subject: String?
    /// `finished` or `abandoned`.
    public var status: SessionStatus
    /// When it started, Unix milliseconds.
    public var startedAt: Int64
    /// When it ended, Unix milliseconds.
    public var endedAt: Int64?
    /// Its exercise.
    public var exercise: String
    /// Its side, if any.
    public var side: BodySide?
    /// Its summary, as ``SummaryRendering/render`` wrote it.
    public var summary: [UInt8]
    /// The programme item it was started for, if any.
    public var programme: ProgrammeLink?
    /// Whether it was a demonstration.
    public var demo: Bool

    /// Creates a rendered session.
    public init(
        id: SessionID, tenant: String, subject: String?, status: SessionStatus, startedAt: Int64, endedAt: Int64?,
        exercise: String, side: BodySide?, summary: [UInt8], programme: ProgrammeLink? = nil, demo: Bool = false
    ) {
        self.programme = programme
        self.demo = demo
        self.id = id
        self.tenant = tenant
        self.subject = subject
        self.status = status
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.exercise = exercise
        self.side = side
        self.summary = summary
    }
}
