public import MotionCore

extension PostgresSessionStore {
    /// A live session's engine state as of its last checkpoint, and the timestamp of the last pose it covers.
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    /// - Returns: The state, or nil when this tenant has no such session, it has ended, or none was kept.
    /// - Throws: Database errors.
    public func engineState(id: SessionID, tenant: String) throws(SessionStoreError) -> (state: [UInt8], t: Double?)? {
        let db = try database()
        let row = try db.query(
            """
            SELECT engine_state, checkpoint_t FROM sessions
            WHERE id = $1 AND \(Self.liveCondition(tenant: "$2")) AND engine_state IS NOT NULL
            """, [.string(id.description), .string(tenant)]
        ).first
        return row.map { (state: $0.blob(0), t: $0.optionalDouble(1)) }
    }

    /// One session with its reps and series, read in one snapshot on a read connection.
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    /// - Returns: The session, or nil if this tenant has none with this id.
    /// - Throws: ``SessionStoreError/corruptRecord(id:)``; database errors.
    public nonisolated func session(id: SessionID, tenant: String) async throws(SessionStoreError) -> StoredSession? {
        try await readers.read { db throws(SessionStoreError) in
            try PostgresSessionReads.wholeSession(id: id, tenant: tenant, in: db).session
        }
    }

    /// What continuing a session needs, read in one snapshot.
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    /// - Returns: The resume point, or nil if this tenant has no such session.
    /// - Throws: ``SessionStoreError/corruptRecord(id:)``; database errors.
    public func resumePoint(id: SessionID, tenant: String) throws(SessionStoreError) -> ResumePoint? {
        let resume = PostgresStatement(
            "SELECT \(SessionRows.resumeColumns) FROM sessions WHERE id = $1 AND tenant = $2",
            [.string(id.description), .string(tenant)])
        let (session, rows) = try PostgresSessionReads.wholeSession(
            id: id, tenant: tenant, in: database(), with: [resume])
        guard let session, let row = rows[0].first else { return nil }
        return SessionRows.resumePoint(of: session, from: row)
    }

    /// Every live session, oldest write first.
    /// - Returns: The sessions.
    /// - Throws: ``SessionStoreError/corruptRecord(id:)``; database errors.
    public func liveSessions() throws(SessionStoreError) -> [LiveSessionEntry] {
        let db = try database()
        let rows = try db.query(
            """
            SELECT id, tenant, updated_at, resume_digest, holder FROM sessions WHERE status = 'live'
            ORDER BY updated_at, id
            """)
        var entries: [LiveSessionEntry] = []
        for row in rows.rows {
            guard let id = row.sessionID(0) else { throw .corruptRecord(id: row.string(0)) }
            entries.append(
                LiveSessionEntry(
                    id: id, tenant: row.string(1), updatedAt: row.int64(2),
                    tokenDigest: row.isNull(3) ? nil : row.blob(3), holder: row.optionalString(4)))
        }
        return entries
    }

    /// Whether a client is attached to each of these live sessions, as their holders last wrote it; read on a read
    /// connection.
    /// - Parameters:
    ///   - ids: The sessions.
    ///   - tenant: Their tenant.
    /// - Returns: The flags of those that are live and have one.
    /// - Throws: Database errors.
    public nonisolated func connected(
        _ ids: [SessionID], tenant: String
    ) async throws(SessionStoreError) -> [SessionID: Bool] {
        guard !ids.isEmpty else { return [:] }
        let list = ids.map(\.description).joined(separator: ",")
        return try await readers.read { db throws(SessionStoreError) in
            let rows = try db.query(
                """
                SELECT id, connected::int FROM sessions
                WHERE id = ANY (string_to_array($1, ',')) AND \(PostgresSessionStore.liveCondition(tenant: "$2"))
                    AND connected IS NOT NULL
                """, [.string(list), .string(tenant)])
            var flags: [SessionID: Bool] = [:]
            for row in rows.rows {
                guard let id = row.sessionID(0) else { continue }
                flags[id] = row.int(1) != 0
            }
            return flags
        }
    }

    /// A session's value series, read on a read connection.
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    /// - Returns: The series (empty if none was stored), or nil if this tenant has no such session.
    /// - Throws: ``SessionStoreError/corruptRecord(id:)``; database errors.
    public nonisolated func series(id: SessionID, tenant: String) async throws(SessionStoreError) -> ValueSeries? {
        try await readers.read { db throws(SessionStoreError) in
            try PostgresSessionReads.chunkedSeries(id: id, tenant: tenant, in: db)
        }
    }

    /// A session's motion series, read on a read connection.
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    /// - Returns: The series (empty if none was stored), or nil if this tenant has no such session.
    /// - Throws: ``SessionStoreError/corruptRecord(id:)``; database errors.
    public nonisolated func motion(id: SessionID, tenant: String) async throws(SessionStoreError) -> MotionSeries? {
        try await readers.read { db throws(SessionStoreError) in
            try PostgresSessionReads.chunkedSeries(id: id, tenant: tenant, in: db)
        }
    }

    /// One page of a tenant's sessions, newest first, with reps but without series, read in one snapshot on a read
    /// connection.
    ///
    /// Keyset pagination on `(started_at, id)` descending, served by the `(tenant, …, started_at, id)` indexes.
    /// - Parameter query: Tenant, filters, page size and cursor.
    /// - Returns: The page and the cursor of the next one.
    /// - Throws: ``SessionStoreError/invalidCursor``; ``SessionStoreError/corruptRecord(id:)``; database errors.
    public nonisolated func list(_ query: SessionQuery) async throws(SessionStoreError) -> SessionPage {
        let after = try query.cursor.map { text throws(SessionStoreError) in try SessionCursor(parsing: text) }
        let version = query.readsWhole ? nil : rendering?.version
        return try await readers.read { db throws(SessionStoreError) in
            try PostgresSessionReads.page(query, after: after, version: version, in: db)
        }
    }

    /// How many of a tenant's sessions match the query's filters, all pages together (its cursor and limit are
    /// ignored), counted through the index a listing with these filters takes, on a read connection.
    /// - Parameter query: Tenant and filters.
    /// - Returns: The number of matching sessions.
    /// - Throws: Database errors.
    /// - Complexity: O(matching sessions) index entries read.
    public nonisolated func count(_ query: SessionQuery) async throws(SessionStoreError) -> Int {
        let statement = PostgresSessionReads.filtered("SELECT count(*) FROM sessions", for: query)
        return try await readers.read { db throws(SessionStoreError) in
            try db.query(statement.sql, statement.parameters).first?.int(0) ?? 0
        }
    }

    /// One subject's latest sessions in a window, oldest first, read from `sessions` alone on a read connection.
    /// - Parameter query: Tenant, subject, filters and limit.
    /// - Returns: The sessions, oldest first, and the cursor of the older ones left out.
    /// - Throws: ``SessionStoreError/invalidCursor``; ``SessionStoreError/corruptRecord(id:)``; database errors.
    /// - Complexity: O(limit) rows read.
    public nonisolated func progress(_ query: ProgressQuery) async throws(SessionStoreError) -> ProgressPage {
        let before = try query.cursor.map { text throws(SessionStoreError) in try SessionCursor(parsing: text) }
        return try await readers.read { db throws(SessionStoreError) in
            try PostgresSessionReads.progress(query, before: before, in: db)
        }
    }
}

/// The session store's reads, on whichever connection the caller has: a read connection of the pool
/// (``PostgresReadPool``) or the store's own.
///
/// A read of several statements sends them in one pipeline (one round trip) inside a read-only snapshot
/// transaction, so they see the database as of one moment.
enum PostgresSessionReads {
    /// The `reps` columns ``SessionRows/PageReps`` reads: `session_id`, then ``SessionRows/repColumns``.
    private static let repColumns = "session_id, " + SessionRows.repColumns

    /// The reps of the sessions of an id array (``idArray(_:)``), by session and in order, read by
    /// ``readReps(_:into:)``.
    static let repsOfSessions =
        "SELECT \(repColumns) FROM reps WHERE session_id = ANY ($1::text[]) ORDER BY session_id, \"position\""

    /// Session ids as a `text[]` parameter, `{ID,ID,…}`: ids are Crockford base32, which needs no quoting in an
    /// array literal.
    static func idArray(_ ids: [SessionID]) -> PostgresValue {
        .text("{" + ids.map(\.description).joined(separator: ",") + "}")
    }

    /// A snapshot that reads see whole: several statements, one view of the database.
    static let snapshot = "ISOLATION LEVEL REPEATABLE READ READ ONLY"

    /// One session with its reps and series, and the rows of `more` statements, all in one snapshot and one round
    /// trip.
    /// - Returns: The session (nil if this tenant has none with this id) and the rows of `more`, in order.
    static func wholeSession(
        id: SessionID, tenant: String, in db: PostgresConnection, with more: [PostgresStatement] = []
    ) throws(SessionStoreError) -> (session: StoredSession?, more: [PostgresRows]) {
        let key = PostgresValue.string(id.description)
        let results = try db.pipeline(
            [
                PostgresStatement(
                    "SELECT \(SessionRows.sessionColumns) FROM sessions WHERE id = $1 AND tenant = $2",
                    [key, .string(tenant)]),
                PostgresStatement(
                    "SELECT \(repColumns) FROM reps WHERE session_id = $1 ORDER BY \"position\"", [key]),
            ] + seriesStatements(ValueSeries.self, of: key) + seriesStatements(MotionSeries.self, of: key) + more,
            transaction: snapshot)
        let extra = Array(results.dropFirst(6))
        guard let row = results[0].first else { return (nil, extra) }
        var sessions = [try SessionRows.session(from: row)]
        try readReps(results[1], into: &sessions)
        var session = sessions[0]
        session.summary.series = try storedSeries(of: id, shape: results[2], chunks: results[3]) ?? ValueSeries()
        session.summary.motion = try storedSeries(of: id, shape: results[4], chunks: results[5]) ?? MotionSeries()
        return (session, extra)
    }

    /// One of a session's series, read in one snapshot and one round trip; nil if this tenant has no such session.
    static func chunkedSeries<Series: ChunkedSeries>(
        id: SessionID, tenant: String, in db: PostgresConnection
    ) throws(SessionStoreError) -> Series? {
        let key = PostgresValue.string(id.description)
        let results = try db.pipeline(
            [PostgresStatement("SELECT 1 FROM sessions WHERE id = $1 AND tenant = $2", [key, .string(tenant)])]
                + seriesStatements(Series.self, of: key),
            transaction: snapshot)
        guard results[0].count > 0 else { return nil }
        return try storedSeries(of: id, shape: results[1], chunks: results[2]) ?? Series()
    }

    /// One page of sessions: its rows with their rendered summaries (``SummaryRendering``) in one statement and one
    /// round trip; then, if some have none at `version` (live sessions, those stored before renderings were kept),
    /// those sessions and their reps in one snapshot and one more round trip.
    ///
    /// A session read whole is read as it is then, if it still matches the query: one deleted, or one that no longer
    /// matches a status filter, between the two reads is left out of the page. Rendered sessions have ended, and
    /// an ended session's summary does not change.
    static func page(
        _ query: SessionQuery, after: SessionCursor?, version: Int?, in db: PostgresConnection
    ) throws(SessionStoreError) -> SessionPage {
        let limit = query.effectiveLimit
        // One extra row tells whether another page follows.
        let page = pageStatement(
            "SELECT \(SessionRows.listedColumns) FROM sessions", query, after: after, limit: limit + 1)
        let rows = try db.query(page.sql, page.parameters)
        var listing = ListingAssembly(capacity: rows.count)
        for row in rows.rows { try listing.add(row, version: version) }
        let next = listing.cut(to: limit)
        let unrendered = listing.unrendered
        guard !unrendered.isEmpty else { return listing.page(whole: [], next: next) }
        let ids = idArray(unrendered)
        var whole = filtered("SELECT \(SessionRows.sessionColumns) FROM sessions", for: query)
        whole.append(" AND id = ANY (", ids)
        whole.append("::text[])")
        let results = try db.pipeline(
            [
                PostgresStatement(whole.sql, whole.parameters),
                PostgresStatement(repsOfSessions, [ids]),
            ], transaction: snapshot)
        var sessions: [StoredSession] = []
        sessions.reserveCapacity(results[0].count)
        for row in results[0].rows { sessions.append(try SessionRows.session(from: row)) }
        try readReps(results[1], into: &sessions)
        return listing.page(whole: sessions, next: next)
    }

    /// `select` with the query's conditions and cursor, newest first, at most `limit` rows.
    private static func pageStatement(
        _ select: String, _ query: SessionQuery, after: SessionCursor?, limit: Int
    ) -> PostgresStatementBuilder {
        var statement = filtered(select, for: query)
        if let after {
            statement.append(" AND (started_at, id) < (", .int(after.startedAt))
            statement.append(", ", .string(after.id.description))
            statement.append(")")
        }
        statement.append(" ORDER BY started_at DESC, id DESC LIMIT \(limitLiteral(limit))")
        return statement
    }

    /// A page's `LIMIT`, written into the statement rather than passed as a parameter: with `LIMIT $n` PostgreSQL
    /// prices a generic plan as if a tenth of the table were read and plans every execution anew (an eighth of a
    /// page's time); with a number, a statement whose filters an index serves whatever their values keeps one
    /// generic plan, and one that an index serves only for some values (a subject prefix) is still planned for
    /// them. Limits are few (at most ``SessionQuery/maximumLimit``), and ``PostgresConnection`` bounds how many
    /// statements it keeps prepared.
    private static func limitLiteral(_ limit: Int) -> String { String(max(1, limit)) }

    /// `select` with the `WHERE` condition of the query's tenant and filters (not its cursor).
    static func filtered(_ select: String, for query: SessionQuery) -> PostgresStatementBuilder {
        var statement = PostgresStatementBuilder(select + " WHERE tenant = ", .string(query.tenant))
        if let subject = query.subject { statement.append(" AND subject = ", .string(subject)) }
        if let prefix = query.subjectPrefix {
            statement.append(" AND starts_with(subject, ", .string(prefix))
            statement.append(")")
        }
        if let exercise = query.exercise { statement.append(" AND exercise = ", .string(exercise)) }
        if let status = query.status { statement.append(" AND status = ", .string(status.rawValue)) }
        if let from = query.from { statement.append(" AND started_at >= ", .int(from)) }
        if let to = query.to { statement.append(" AND started_at < ", .int(to)) }
        return statement
    }

    /// One subject's latest sessions in a window, oldest first (see ``PostgresSessionStore/progress(_:)``).
    static func progress(
        _ query: ProgressQuery, before: SessionCursor?, in db: PostgresConnection
    ) throws(SessionStoreError) -> ProgressPage {
        let limit = query.effectiveLimit
        var statement = PostgresStatementBuilder(
            "SELECT \(SessionRows.progressColumns) FROM sessions WHERE tenant = ", .string(query.tenant))
        statement.append(" AND subject = ", .string(query.subject))
        if let exercise = query.exercise { statement.append(" AND exercise = ", .string(exercise)) }
        if let from = query.from { statement.append(" AND started_at >= ", .int(from)) }
        if let to = query.to { statement.append(" AND started_at < ", .int(to)) }
        if !query.includesDemo { statement.append(" AND NOT demo") }
        if let before {
            statement.append(" AND (started_at, id) < (", .int(before.startedAt))
            statement.append(", ", .string(before.id.description))
            statement.append(")")
        }
        statement.append(" ORDER BY started_at DESC, id DESC LIMIT \(limitLiteral(limit + 1))")
        var rows: [SessionRows.ProgressRow] = []
        for row in try db.query(statement.sql, statement.parameters).rows {
            rows.append(try SessionRows.progressRow(from: row))
        }
        let next = SessionCursor.cut(&rows, to: limit) { ($0.startedAt, $0.id) }
        return ProgressPage(entries: rows.reversed().map(\.entry), next: next)
    }

    /// Fills in the sessions' reps from rows over ``repColumns``, grouped by session.
    static func readReps(
        _ rows: PostgresRows, into sessions: inout [StoredSession]
    ) throws(SessionStoreError) {
        var reps = SessionRows.PageReps(of: sessions)
        for row in rows.rows { try reps.add(row, to: &sessions) }
    }

    /// The two statements a series is read with: its shape (interval and capacity), then its chunks in order.
    private static func seriesStatements<Series: ChunkedSeries>(
        _: Series.Type, of key: PostgresValue
    ) -> [PostgresStatement] {
        [
            PostgresStatement("SELECT \"interval\", capacity FROM \(Series.shapeTable) WHERE session_id = $1", [key]),
            PostgresStatement(
                "SELECT first, samples FROM \(Series.chunkTable) WHERE session_id = $1 ORDER BY first", [key]),
        ]
    }

    /// A session's series from the rows of ``seriesStatements(_:of:)``: nil without a shape; its chunks in order
    /// (``ChunkAssembly``).
    private static func storedSeries<Series: ChunkedSeries>(
        of id: SessionID, shape: PostgresRows, chunks: PostgresRows
    ) throws(SessionStoreError) -> Series? {
        guard let shape = shape.first.map({ (interval: $0.double(0), capacity: $0.int(1)) }) else { return nil }
        var assembly = ChunkAssembly<Series>()
        for row in chunks.rows {
            guard assembly.append(first: row.int(0), samples: row.blob(1)) else {
                throw .corruptRecord(id: id.description)
            }
        }
        guard let series = assembly.series(interval: shape.interval, capacity: shape.capacity) else {
            throw .corruptRecord(id: id.description)
        }
        return series
    }
}

/// A statement built clause by clause, each value numbered as the next parameter (`$1`, `$2`, …): PostgreSQL
/// needs every parameter up to the highest to appear, so optional filters cannot keep fixed numbers.
struct PostgresStatementBuilder {
    private(set) var sql: String
    private(set) var parameters: [PostgresValue] = []

    init(_ sql: String, _ value: PostgresValue) {
        self.sql = sql
        append("", value)
    }

    /// Appends `sql`, then the next parameter's placeholder for `value` if there is one.
    mutating func append(_ sql: String, _ value: PostgresValue? = nil) {
        self.sql += sql
        if let value {
            parameters.append(value)
            self.sql += "$\(parameters.count)"
        }
    }
}
