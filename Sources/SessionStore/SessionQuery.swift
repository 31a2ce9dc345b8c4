public import MotionCore

/// A filtered, paginated listing of one tenant's sessions, newest first (docs/protocol.md §5
/// `GET /v1/sessions?subject=&subjectPrefix=&exercise=&status=&from=&to=&limit=&cursor=`).
///
/// Filters left nil do not filter. `from` and `to` bound the start time as a half-open range, `from <= startedAt <
/// to`. Sessions are ordered by start time, newest first, then by id; a page's ``SessionPage/next`` cursor names the
/// last session returned, so the following page starts strictly after it and stays correct while sessions are added
/// or deleted in between (keyset pagination: no offsets).
///
///     var query = SessionQuery(tenant: "clinic-1", subject: "patient-17", limit: 20)
///     let page = try await store.list(query)
///     query.cursor = page.next  // nil after the last page
public struct SessionQuery: Sendable, Hashable {
    /// The page size used when none is given (docs/protocol.md §5).
    public static let defaultLimit = 50
    /// The largest page size; larger requests are clamped to it (docs/protocol.md §5).
    public static let maximumLimit = 500

    /// The tenant whose sessions are listed.
    public var tenant: String
    /// Only this subject's sessions.
    public var subject: String?
    /// Only sessions whose subject starts with this (compared character by character, case-sensitive).
    public var subjectPrefix: String?
    /// Only sessions of this exercise id.
    public var exercise: String?
    /// Only sessions with this status.
    public var status: SessionStatus?
    /// Only sessions started at or after this time, Unix milliseconds.
    public var from: Int64?
    /// Only sessions started before this time, Unix milliseconds.
    public var to: Int64?
    /// The requested page size; see ``effectiveLimit``.
    public var limit: Int
    /// The opaque cursor of a previous page's ``SessionPage/next``; nil for the first page.
    public var cursor: String?
    /// Whether every session of the page is read whole (``ListedSession/read(_:)``), also one whose summary the store
    /// keeps rendered: for a caller that needs the summaries' values rather than their wire form (the FHIR export).
    public var readsWhole = false

    /// Creates a query.
    /// - Parameters:
    ///   - tenant: The tenant.
    ///   - subject: Only this subject.
    ///   - subjectPrefix: Only subjects starting with this.
    ///   - exercise: Only this exercise id.
    ///   - status: Only this status.
    ///   - from: Only starts at or after this, Unix milliseconds.
    ///   - to: Only starts before this, Unix milliseconds.
    ///   - limit: Page size (clamped to `1...500`).
    ///   - cursor: A previous page's `next`.
    public init(
        tenant: String, subject: String? = nil, subjectPrefix: String? = nil, exercise: String? = nil,
        status: SessionStatus? = nil, from: Int64? = nil, to: Int64? = nil, limit: Int = SessionQuery.defaultLimit,
        cursor: String? = nil
    ) {
        self.tenant = tenant
        self.subject = subject
        self.subjectPrefix = subjectPrefix
        self.exercise = exercise
        self.status = status
        self.from = from
        self.to = to
        self.limit = limit
        self.cursor = cursor
    }

    /// ``limit`` clamped to `1...maximumLimit`: what every store uses.
    public var effectiveLimit: Int { min(max(limit, 1), Self.maximumLimit) }
}

/// One page of a listing.
public struct SessionPage: Sendable, Hashable {
    /// The sessions, newest first: read with their reps but an empty series, or, for an ended session whose
    /// summary the store keeps rendered (``SummaryRendering``), with that rendering.
    public var entries: [ListedSession]
    /// The cursor of the following page, or nil when this is the last one.
    public var next: String?

    /// Creates a page.
    /// - Parameters:
    ///   - entries: The sessions.
    ///   - next: The following page's cursor.
    public init(entries: [ListedSession], next: String?) {
        self.entries = entries
        self.next = next
    }

    /// The sessions read whole, in order: every session of the page from a store that keeps no rendering.
    public var sessions: [StoredSession] {
        entries.compactMap { entry in
            guard case .read(let session) = entry else { return nil }
            return session
        }
    }
}
