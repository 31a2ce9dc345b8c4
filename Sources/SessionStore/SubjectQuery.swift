/// A page of a tenant's subjects (`GET /v1/subjects?prefix=&limit=&cursor=`): the subjects that have sessions, in
/// byte order of their UTF-8, with how many sessions each has and when the latest started.
public struct SubjectQuery: Sendable, Hashable {
    /// The largest page: 200.
    public static let maximumLimit = 200

    /// The tenant.
    public var tenant: String
    /// Only subjects starting with this (compared by Unicode scalars, as stored), when given and not empty.
    public var prefix: String?
    /// The page size, 1…``maximumLimit``.
    public var limit: Int
    /// The cursor of the page, from a previous page's `next`.
    public var cursor: String?

    /// Creates a query.
    /// - Parameters:
    ///   - tenant: The tenant.
    ///   - prefix: Only subjects starting with this.
    ///   - limit: The page size.
    ///   - cursor: Where the page starts.
    public init(tenant: String, prefix: String? = nil, limit: Int = 50, cursor: String? = nil) {
        self.tenant = tenant
        self.prefix = prefix
        self.limit = limit
        self.cursor = cursor
    }

    /// The limit clamped to 1…``maximumLimit``.
    public var effectiveLimit: Int { min(max(limit, 1), Self.maximumLimit) }

    /// The subject the page starts after, from the cursor (the base64url of the last subject listed).
    /// - Throws: ``SessionStoreError/invalidCursor`` for a cursor that is not one.
    func after() throws(SessionStoreError) -> String? {
        guard let cursor else { return nil }
        guard let bytes = Base64URL.decode(cursor), !bytes.isEmpty,
            let subject = String(validating: bytes, as: UTF8.self)
        else { throw .invalidCursor }
        return subject
    }

    /// The range of subjects the query reads: from the prefix (or after the cursor, whichever is later) up to, not
    /// including, ``upperBound(ofPrefix:)``. Strings compare as the stores compare text: by their UTF-8 bytes, which
    /// is the order of their Unicode scalars.
    func range() throws(SessionStoreError) -> (from: String, inclusive: Bool, below: String?) {
        let prefix = self.prefix.flatMap { $0.isEmpty ? nil : $0 }
        let below = prefix.flatMap(Self.upperBound(ofPrefix:))
        guard let after = try after() else { return (prefix ?? "", true, below) }
        if let prefix, after.utf8.lexicographicallyPrecedes(prefix.utf8) { return (prefix, true, below) }
        return (after, false, below)
    }

    /// The least string above every string that starts with `prefix`: the prefix with its last scalar raised by one
    /// (past the surrogates, which no string holds), or with that scalar dropped when it is the last one of Unicode;
    /// nil when there is none (a prefix of U+10FFFF only), so the range is open above.
    static func upperBound(ofPrefix prefix: String) -> String? {
        var scalars = Array(prefix.unicodeScalars)
        while let last = scalars.popLast() {
            let next = last.value == 0xD7FF ? 0xE000 : last.value + 1
            if let raised = Unicode.Scalar(next) {
                scalars.append(raised)
                var upper = String.UnicodeScalarView()
                upper.append(contentsOf: scalars)
                return String(upper)
            }
        }
        return nil
    }

    /// Cuts a page read with one row more than the limit and makes the cursor of the next page.
    static func page(_ rows: [SubjectEntry], limit: Int) -> SubjectPage {
        guard rows.count > limit, let last = rows.prefix(limit).last else {
            return SubjectPage(subjects: rows, next: nil)
        }
        return SubjectPage(subjects: Array(rows.prefix(limit)), next: Base64URL.encode(Array(last.subject.utf8)))
    }
}

/// One subject of a ``SubjectPage``.
public struct SubjectEntry: Sendable, Hashable {
    /// The subject.
    public var subject: String
    /// How many sessions of the tenant have it, demonstrations included.
    public var sessions: Int
    /// When its latest session started on the server's clock, Unix milliseconds.
    public var lastStartedAt: Int64

    /// Creates an entry.
    /// - Parameters:
    ///   - subject: The subject.
    ///   - sessions: Its sessions.
    ///   - lastStartedAt: Its latest session's start, Unix milliseconds.
    public init(subject: String, sessions: Int, lastStartedAt: Int64) {
        self.subject = subject
        self.sessions = sessions
        self.lastStartedAt = lastStartedAt
    }
}

/// A page of subjects and the cursor of the next page (nil on the last).
public struct SubjectPage: Sendable, Hashable {
    /// The subjects, in byte order.
    public var subjects: [SubjectEntry]
    /// The cursor of the following page, or nil.
    public var next: String?

    /// Creates a page.
    /// - Parameters:
    ///   - subjects: The subjects.
    ///   - next: The next page's cursor.
    public init(subjects: [SubjectEntry], next: String?) {
        self.subjects = subjects
        self.next = next
    }
}
