/// One stored version of a programme (docs/protocol.md §5.3): what a clinician prescribes to one subject.
///
/// As for custom exercises (``StoredExercise``), the store keeps the definition as the text the application gave and
/// never reads it; beside it, the columns that listings and adherence filter on. Every version stays stored: a
/// session started from version 2 names it after version 3 replaced it, or after the programme ended.
public struct StoredProgramme: Sendable, Hashable {
    /// The programme id (server-made, sortable by creation time).
    public var id: String
    /// The tenant that owns it; every read and write is scoped to one tenant.
    public var tenant: String
    /// The version: 1 for the first, one more with every save.
    public var version: Int
    /// The subject it is prescribed to (the same in every version).
    public var subject: String
    /// The first day, `YYYY-MM-DD`.
    public var startsOn: String
    /// The last day, `YYYY-MM-DD`, or nil for an open end.
    public var endsOn: String?
    /// The definition as the application encoded it.
    public var definition: String
    /// When this version was stored, Unix milliseconds (store clock).
    public var createdAt: Int64
    /// When the programme was ended (`DELETE`), Unix milliseconds (store clock); nil while it runs.
    public var endedAt: Int64?

    /// Creates a record.
    /// - Parameters:
    ///   - id: The programme id.
    ///   - tenant: The owning tenant.
    ///   - version: The version.
    ///   - subject: The subject it is prescribed to.
    ///   - startsOn: The first day, `YYYY-MM-DD`.
    ///   - endsOn: The last day, `YYYY-MM-DD`, or nil.
    ///   - definition: The encoded definition.
    ///   - createdAt: When it was stored, Unix milliseconds.
    ///   - endedAt: When it was ended, Unix milliseconds.
    public init(
        id: String, tenant: String, version: Int, subject: String, startsOn: String, endsOn: String?,
        definition: String, createdAt: Int64, endedAt: Int64? = nil
    ) {
        self.id = id
        self.tenant = tenant
        self.version = version
        self.subject = subject
        self.startsOn = startsOn
        self.endsOn = endsOn
        self.definition = definition
        self.createdAt = createdAt
        self.endedAt = endedAt
    }
}

/// What a save of a programme writes (``SessionStore/saveProgramme(_:as:maxVersions:definition:)``): everything but
/// the version number and the definition's text, which depend on the version.
public struct ProgrammeDraft: Sendable, Hashable {
    /// The programme id.
    public var id: String
    /// Its tenant.
    public var tenant: String
    /// The subject it is prescribed to.
    public var subject: String
    /// The first day, `YYYY-MM-DD`.
    public var startsOn: String
    /// The last day, `YYYY-MM-DD`, or nil.
    public var endsOn: String?

    /// Creates a draft.
    /// - Parameters:
    ///   - id: The programme id.
    ///   - tenant: Its tenant.
    ///   - subject: The subject.
    ///   - startsOn: The first day.
    ///   - endsOn: The last day, or nil.
    public init(id: String, tenant: String, subject: String, startsOn: String, endsOn: String?) {
        self.id = id
        self.tenant = tenant
        self.subject = subject
        self.startsOn = startsOn
        self.endsOn = endsOn
    }
}

/// A page request of a tenant's programmes (``SessionStore/programmes(_:)``), newest first.
public struct ProgrammeQuery: Sendable, Hashable {
    /// The largest page: 500.
    public static let maximumLimit = 500

    /// The tenant.
    public var tenant: String
    /// Only this subject's programmes, when given.
    public var subject: String?
    /// Only running programmes (true), or only ended ones (false); nil for both.
    public var active: Bool?
    /// The page size, 1…``maximumLimit``.
    public var limit: Int
    /// The cursor of the page, from a previous page's `next`.
    public var cursor: String?

    /// Creates a query.
    /// - Parameters:
    ///   - tenant: The tenant.
    ///   - subject: Only this subject's programmes.
    ///   - active: Only running (true) or ended (false) ones.
    ///   - limit: The page size.
    ///   - cursor: Where the page starts.
    public init(tenant: String, subject: String? = nil, active: Bool? = nil, limit: Int = 50, cursor: String? = nil) {
        self.tenant = tenant
        self.subject = subject
        self.active = active
        self.limit = limit
        self.cursor = cursor
    }

    /// The limit clamped to 1…``maximumLimit``.
    public var effectiveLimit: Int { min(max(limit, 1), Self.maximumLimit) }

    /// The id the page starts after, from the cursor.
    /// - Throws: ``SessionStoreError/invalidCursor``.
    func after() throws(SessionStoreError) -> SessionID? {
        try cursor.map { text throws(SessionStoreError) in try SessionCursor(parsing: text).id }
    }

    /// Cuts a page read with one row more than the limit and makes the cursor of the next page.
    static func page(_ rows: [StoredProgramme], limit: Int) -> ProgrammePage {
        guard rows.count > limit, let last = rows.prefix(limit).last, let id = SessionID(last.id) else {
            return ProgrammePage(programmes: rows, next: nil)
        }
        return ProgrammePage(
            programmes: Array(rows.prefix(limit)), next: SessionCursor(startedAt: 0, id: id).encoded)
    }
}

/// A page of programmes, each at its latest version, and the cursor of the next page (nil on the last).
public struct ProgrammePage: Sendable, Hashable {
    /// The programmes, newest first.
    public var programmes: [StoredProgramme]
    /// The cursor of the following page, or nil.
    public var next: String?

    /// Creates a page.
    /// - Parameters:
    ///   - programmes: The programmes.
    ///   - next: The next page's cursor.
    public init(programmes: [StoredProgramme], next: String?) {
        self.programmes = programmes
        self.next = next
    }
}

extension SessionRows {
    /// The `programmes` columns ``programme(from:)`` reads, in order.
    static let programmeColumns =
        "id, tenant, version, subject, starts_on, ends_on, definition, created_at, ended_at"

    /// A row of ``programmeColumns``.
    static func programme(from row: some StoreRow) -> StoredProgramme {
        StoredProgramme(
            id: row.string(0), tenant: row.string(1), version: row.int(2), subject: row.string(3),
            startsOn: row.string(4), endsOn: row.optionalString(5), definition: row.string(6),
            createdAt: row.int64(7), endedAt: row.optionalInt64(8))
    }

    /// The condition that keeps a programme's latest version (alias `p`).
    static let latestProgramme =
        "p.version = (SELECT max(version) FROM programmes AS v WHERE v.tenant = p.tenant AND v.id = p.id)"
}

/// What a tenant has stored of programmes when it saves one, as both stores count it inside the save's transaction.
struct ProgrammeHoldings {
    /// The highest version stored of the programme being saved, 0 if none.
    var latestVersion: Int
    /// Whether the programme was ended.
    var isEnded: Bool
    /// The programme versions the tenant has stored, of every programme.
    var versions: Int

    /// The version a save numbers next, after checking the save against what is held and the quota.
    /// - Throws: ``SessionStoreError/alreadyExists``, ``SessionStoreError/notFound``, ``SessionStoreError/ended``,
    ///   ``SessionStoreError/tooManyVersions(limit:)``.
    func nextVersion(for write: ExerciseWrite, maxVersions: Int) throws(SessionStoreError) -> Int {
        switch write {
        case .create:
            guard latestVersion == 0 else { throw .alreadyExists }
        case .update:
            guard latestVersion > 0 else { throw .notFound }
            guard !isEnded else { throw .ended }
        }
        guard versions < maxVersions else { throw .tooManyVersions(limit: maxVersions) }
        return latestVersion + 1
    }
}
