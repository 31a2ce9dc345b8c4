public import MotionCore

/// One subject's sessions for a trend chart, oldest first (docs/protocol.md §5.2
/// `GET /v1/subjects/{subject}/progress?exercise=&from=&to=`).
///
/// `from` and `to` bound the start time as a half-open range, `from <= startedAt < to`, as in ``SessionQuery``.
/// The work per call is bounded: of the sessions in the window, the latest ``effectiveLimit`` are returned, in
/// ascending order. When older ones were left out, ``ProgressPage/next`` is the cursor of the page before: the
/// query with it returns the latest sessions older than this page's first (keyset, as ``SessionQuery``'s cursor).
///
///     var query = ProgressQuery(tenant: "clinic-1", subject: "patient-17", exercise: "squat")
///     let page = try await store.progress(query)
///     query.cursor = page.next  // nil when the window has no older session
public struct ProgressQuery: Sendable, Hashable {
    /// The most sessions one call returns, and the default.
    public static let maximumLimit = 1_000

    /// The tenant whose sessions are read.
    public var tenant: String
    /// The subject.
    public var subject: String
    /// Only sessions of this exercise id.
    public var exercise: String?
    /// Only sessions started at or after this time, Unix milliseconds.
    public var from: Int64?
    /// Only sessions started before this time, Unix milliseconds.
    public var to: Int64?
    /// The requested number of sessions; see ``effectiveLimit``.
    public var limit: Int
    /// The opaque cursor of a later page's ``ProgressPage/next``; nil for the latest sessions.
    public var cursor: String?
    /// Whether demonstrations (``StoredSession/demo``) are included; they are left out by default.
    public var includesDemo = false

    /// Creates a query.
    /// - Parameters:
    ///   - tenant: The tenant.
    ///   - subject: The subject.
    ///   - exercise: Only this exercise id.
    ///   - from: Only starts at or after this, Unix milliseconds.
    ///   - to: Only starts before this, Unix milliseconds.
    ///   - limit: How many of the latest sessions in the window (clamped to `1...1000`).
    ///   - cursor: A later page's `next`.
    public init(
        tenant: String, subject: String, exercise: String? = nil, from: Int64? = nil, to: Int64? = nil,
        limit: Int = ProgressQuery.maximumLimit, cursor: String? = nil
    ) {
        self.tenant = tenant
        self.subject = subject
        self.exercise = exercise
        self.from = from
        self.to = to
        self.limit = limit
        self.cursor = cursor
    }

    /// ``limit`` clamped to `1...maximumLimit`: what every store uses.
    public var effectiveLimit: Int { min(max(limit, 1), Self.maximumLimit) }
}

/// The answer to a ``ProgressQuery``.
public struct ProgressPage: Sendable, Hashable {
    /// The sessions, oldest first (by start time, then id).
    public var entries: [ProgressEntry]
    /// The cursor of the page of older sessions when this one left some out, nil otherwise.
    public var next: String?

    /// Creates a page.
    /// - Parameters:
    ///   - entries: The sessions, oldest first.
    ///   - next: The cursor of the older sessions' page.
    public init(entries: [ProgressEntry], next: String?) {
        self.entries = entries
        self.next = next
    }
}
