public import MotionCore

extension PostgresSessionStore {
    /// The `sessions` columns a ``StoredSession`` is read from, in the order ``readSession(from:)`` expects.
    private static let columns = """
        id, tenant, subject, status, started_at, ended_at, exercise, side, first_t, last_t, frames, visible_frames,
        rep_count, rejected_count, best, baseline, fault_counts, exercise_version, prescribed_target, prescribed_rest,
        prescribed_enter, prescribed_exit, prescribed_hold_seconds, prescribed_reps, prescribed_sets, per_side
        """

    /// A snapshot that reads see whole: several statements, one view of the database.
    private static let snapshot = "ISOLATION LEVEL REPEATABLE READ READ ONLY"

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
            WHERE id = $1 AND tenant = $2 AND status = 'live' AND engine_state IS NOT NULL
            """, [.string(id.description), .string(tenant)]
        ).first
        return row.map { (state: $0.blob(0), t: $0.optionalDouble(1)) }
    }

    /// One session with its reps and series, read in one snapshot.
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    /// - Returns: The session, or nil if this tenant has none with this id.
    /// - Throws: ``SessionStoreError/corruptRecord(id:)``; database errors.
    public func session(id: SessionID, tenant: String) throws(SessionStoreError) -> StoredSession? {
        let db = try database()
        return try db.transaction(Self.snapshot) { () throws(SessionStoreError) -> StoredSession? in
            try wholeSession(id: id, tenant: tenant, in: db)
        }
    }

    /// What continuing a session needs, read in one snapshot.
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    /// - Returns: The resume point, or nil if this tenant has no such session.
    /// - Throws: ``SessionStoreError/corruptRecord(id:)``; database errors.
    public func resumePoint(id: SessionID, tenant: String) throws(SessionStoreError) -> ResumePoint? {
        let db = try database()
        return try db.transaction(Self.snapshot) { () throws(SessionStoreError) -> ResumePoint? in
            guard let session = try wholeSession(id: id, tenant: tenant, in: db) else { return nil }
            let row = try db.query(
                """
                SELECT resume_digest, start_request, engine_state, checkpoint_t, updated_at, holder FROM sessions
                WHERE id = $1 AND tenant = $2
                """, [.string(id.description), .string(tenant)]
            ).first
            guard let row else { return nil }
            var resumption: SessionResumption?
            if !row.isNull(0), let start = row.optionalString(1) {
                resumption = SessionResumption(tokenDigest: row.blob(0), start: start)
            }
            let state = row.isNull(2) ? nil : (state: row.blob(2), t: row.optionalDouble(3))
            return ResumePoint(
                session: session, resumption: resumption, engineState: state, updatedAt: row.int64(4),
                holder: row.optionalString(5))
        }
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
            guard let id = SessionID(row.string(0)) else { throw .corruptRecord(id: row.string(0)) }
            entries.append(
                LiveSessionEntry(
                    id: id, tenant: row.string(1), updatedAt: row.int64(2),
                    tokenDigest: row.isNull(3) ? nil : row.blob(3), holder: row.optionalString(4)))
        }
        return entries
    }

    /// Whether a client is attached to each of these live sessions, as their holders last wrote it.
    /// - Parameters:
    ///   - ids: The sessions.
    ///   - tenant: Their tenant.
    /// - Returns: The flags of those that are live and have one.
    /// - Throws: Database errors.
    public func connected(_ ids: [SessionID], tenant: String) throws(SessionStoreError) -> [SessionID: Bool] {
        guard !ids.isEmpty else { return [:] }
        let rows = try database().query(
            """
            SELECT id, connected::int FROM sessions
            WHERE id = ANY (string_to_array($1, ',')) AND tenant = $2 AND status = 'live' AND connected IS NOT NULL
            """, [.string(ids.map(\.description).joined(separator: ",")), .string(tenant)])
        var flags: [SessionID: Bool] = [:]
        for row in rows.rows {
            guard let id = SessionID(row.string(0)) else { continue }
            flags[id] = row.int(1) != 0
        }
        return flags
    }

    /// A session's value series.
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    /// - Returns: The series (empty if none was stored), or nil if this tenant has no such session.
    /// - Throws: ``SessionStoreError/corruptRecord(id:)``; database errors.
    public func series(id: SessionID, tenant: String) throws(SessionStoreError) -> ValueSeries? {
        try chunkedSeries(id: id, tenant: tenant)
    }

    /// A session's motion series.
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    /// - Returns: The series (empty if none was stored), or nil if this tenant has no such session.
    /// - Throws: ``SessionStoreError/corruptRecord(id:)``; database errors.
    public func motion(id: SessionID, tenant: String) throws(SessionStoreError) -> MotionSeries? {
        try chunkedSeries(id: id, tenant: tenant)
    }

    /// One of a session's series, read in one snapshot; nil if this tenant has no such session.
    private func chunkedSeries<Series: ChunkedSeries>(
        id: SessionID, tenant: String
    ) throws(SessionStoreError) -> Series? {
        let db = try database()
        return try db.transaction(Self.snapshot) { () throws(SessionStoreError) -> Series? in
            let exists =
                try db.query(
                    "SELECT 1 FROM sessions WHERE id = $1 AND tenant = $2", [.string(id.description), .string(tenant)]
                ).count > 0
            guard exists else { return nil }
            return try storedSeries(of: id, in: db) ?? Series()
        }
    }

    /// One page of a tenant's sessions, newest first, with reps but without series, read in one snapshot.
    ///
    /// Keyset pagination on `(started_at, id)` descending, served by the `(tenant, …, started_at, id)` indexes.
    /// - Parameter query: Tenant, filters, page size and cursor.
    /// - Returns: The page and the cursor of the next one.
    /// - Throws: ``SessionStoreError/invalidCursor``; ``SessionStoreError/corruptRecord(id:)``; database errors.
    public func list(_ query: SessionQuery) throws(SessionStoreError) -> SessionPage {
        let after = try query.cursor.map { text throws(SessionStoreError) in try SessionCursor(parsing: text) }
        let limit = query.effectiveLimit
        var statement = Self.filteredStatement("SELECT \(Self.columns) FROM sessions", for: query)
        if let after {
            statement.append(" AND (started_at, id) < (", .int(after.startedAt))
            statement.append(", ", .string(after.id.description))
            statement.append(")")
        }
        // One extra row tells whether another page follows.
        statement.append(" ORDER BY started_at DESC, id DESC LIMIT ", .int(limit + 1))
        let db = try database()
        return try db.transaction(Self.snapshot) { () throws(SessionStoreError) -> SessionPage in
            var sessions: [StoredSession] = []
            for row in try db.query(statement.sql, statement.parameters).rows {
                sessions.append(try readSession(from: row))
            }
            var next: String?
            if sessions.count > limit {
                sessions.removeLast(sessions.count - limit)
                next = sessions.last.map { SessionCursor(startedAt: $0.startedAt, id: $0.id).encoded }
            }
            try readReps(into: &sessions, in: db)
            return SessionPage(sessions: sessions, next: next)
        }
    }

    /// How many of a tenant's sessions match the query's filters, all pages together (its cursor and limit are
    /// ignored), counted through the index a listing with these filters takes.
    /// - Parameter query: Tenant and filters.
    /// - Returns: The number of matching sessions.
    /// - Throws: Database errors.
    /// - Complexity: O(matching sessions) index entries read.
    public func count(_ query: SessionQuery) throws(SessionStoreError) -> Int {
        let statement = Self.filteredStatement("SELECT count(*) FROM sessions", for: query)
        let db = try database()
        return try db.query(statement.sql, statement.parameters).first?.int(0) ?? 0
    }

    /// `select` with the `WHERE` condition of the query's tenant and filters (not its cursor).
    private static func filteredStatement(_ select: String, for query: SessionQuery) -> PostgresStatementBuilder {
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

    /// One subject's latest sessions in a window, oldest first, read from `sessions` alone.
    /// - Parameter query: Tenant, subject, filters and limit.
    /// - Returns: The sessions, oldest first, and the cursor of the older ones left out.
    /// - Throws: ``SessionStoreError/invalidCursor``; ``SessionStoreError/corruptRecord(id:)``; database errors.
    /// - Complexity: O(limit) rows read.
    public func progress(_ query: ProgressQuery) throws(SessionStoreError) -> ProgressPage {
        let before = try query.cursor.map { text throws(SessionStoreError) in try SessionCursor(parsing: text) }
        let limit = query.effectiveLimit
        var statement = PostgresStatementBuilder(
            "SELECT id, started_at, exercise, status, best, rep_count, rejected_count, mean_peak, fault_counts"
                + " FROM sessions WHERE tenant = ", .string(query.tenant))
        statement.append(" AND subject = ", .string(query.subject))
        if let exercise = query.exercise { statement.append(" AND exercise = ", .string(exercise)) }
        if let from = query.from { statement.append(" AND started_at >= ", .int(from)) }
        if let to = query.to { statement.append(" AND started_at < ", .int(to)) }
        if let before {
            statement.append(" AND (started_at, id) < (", .int(before.startedAt))
            statement.append(", ", .string(before.id.description))
            statement.append(")")
        }
        statement.append(" ORDER BY started_at DESC, id DESC LIMIT ", .int(limit + 1))
        let db = try database()
        var points: [ProgressPoint] = []
        for row in try db.query(statement.sql, statement.parameters).rows {
            guard let id = SessionID(row.string(0)), let status = SessionStatus(rawValue: row.string(3)),
                let faultCounts = SessionRecordCoding.decodeFaultCounts(row.string(8))
            else { throw .corruptRecord(id: row.string(0)) }
            points.append(
                ProgressPoint(
                    id: id, startedAt: row.int64(1), exercise: row.string(2), status: status,
                    best: row.optionalDouble(4), repCount: row.int(5), rejectedCount: row.int(6),
                    meanPeak: row.optionalDouble(7), faultCounts: faultCounts))
        }
        var next: String?
        if points.count > limit {
            points.removeLast(points.count - limit)
            next = points.last.map { SessionCursor(startedAt: $0.startedAt, id: $0.id).encoded }
        }
        points.reverse()
        return ProgressPage(points: points, next: next)
    }

    /// One session with its reps and series, inside the caller's transaction.
    private func wholeSession(
        id: SessionID, tenant: String, in db: PostgresConnection
    ) throws(SessionStoreError) -> StoredSession? {
        let row = try db.query(
            "SELECT \(Self.columns) FROM sessions WHERE id = $1 AND tenant = $2",
            [.string(id.description), .string(tenant)]
        ).first
        guard let row else { return nil }
        var session = try readSession(from: row)
        var sessions = [session]
        try readReps(into: &sessions, in: db)
        session.summary.reps = sessions[0].summary.reps
        session.summary.series = try storedSeries(of: id, in: db) ?? ValueSeries()
        session.summary.motion = try storedSeries(of: id, in: db) ?? MotionSeries()
        return session
    }

    /// Reads a row over ``columns`` (reps and series left empty).
    private func readSession(from row: PostgresRow) throws(SessionStoreError) -> StoredSession {
        guard let id = SessionID(row.string(0)), let status = SessionStatus(rawValue: row.string(3)),
            let faultCounts = SessionRecordCoding.decodeFaultCounts(row.string(16)),
            let perSide = SessionRecordCoding.decodeTallies(row.string(25))
        else { throw .corruptRecord(id: row.string(0)) }
        var side: BodySide?
        if let text = row.optionalString(7) {
            guard let known = BodySide(rawValue: text) else { throw .corruptRecord(id: row.string(0)) }
            side = known
        }
        let prescription = Prescription(
            target: row.optionalDouble(18), rest: row.optionalDouble(19), enter: row.optionalDouble(20),
            exit: row.optionalDouble(21), holdSeconds: row.optionalDouble(22),
            reps: row.optionalInt64(23).map(Int.init), sets: row.optionalInt64(24).map(Int.init))
        let summary = SessionSummary(
            exercise: row.string(6), exerciseVersion: row.int(17), side: side, prescription: prescription,
            firstTimestamp: row.optionalDouble(8), lastTimestamp: row.optionalDouble(9), frames: row.int(10),
            visibleFrames: row.int(11), repCount: row.int(12), rejectedCount: row.int(13),
            best: row.optionalDouble(14), baseline: row.optionalDouble(15), faultCounts: faultCounts,
            perSide: perSide)
        return StoredSession(
            id: id, tenant: row.string(1), subject: row.optionalString(2), status: status, startedAt: row.int64(4),
            endedAt: row.optionalInt64(5), summary: summary)
    }

    /// Fills in the reps of every session of a page with one statement: the ids go in as one `text[]`.
    private func readReps(into sessions: inout [StoredSession], in db: PostgresConnection) throws(SessionStoreError) {
        guard !sessions.isEmpty else { return }
        var positions: [SessionID: Int] = [:]
        for (index, session) in sessions.enumerated() { positions[session.id] = index }
        // `{ID,ID,…}`: ids are Crockford base32, which needs no quoting in an array literal.
        let ids = "{" + sessions.map(\.id.description).joined(separator: ",") + "}"
        let rows = try db.query(
            """
            SELECT session_id, number, peak, trough, start_t, end_t, faults, time_to_peak, side, motion_smoothness,
                motion_tremor, motion_rms, motion_covered
            FROM reps WHERE session_id = ANY ($1::text[]) ORDER BY session_id, "position"
            """, [.text(ids)])
        for row in rows.rows {
            guard let id = SessionID(row.string(0)), let index = positions[id] else {
                throw .corruptRecord(id: row.string(0))
            }
            var side: BodySide?
            if let text = row.optionalString(8) {
                guard let known = BodySide(rawValue: text) else { throw .corruptRecord(id: row.string(0)) }
                side = known
            }
            let motion = row.optionalDouble(10).map { tremor in
                RepMotion(
                    smoothness: row.optionalDouble(9), tremor: tremor, rms: row.optionalDouble(11) ?? 0,
                    covered: row.optionalDouble(12) ?? 0)
            }
            sessions[index].summary.reps.append(
                Rep(
                    index: row.int(1), peak: row.double(2), trough: row.double(3), start: row.double(4),
                    end: row.double(5), timeToPeak: row.optionalDouble(7), side: side,
                    faults: SessionRecordCoding.decodeFaults(row.string(6)), motion: motion))
        }
    }

    /// A session's series: its interval and capacity, and its chunks of samples in order, which must follow one
    /// another without a gap.
    private func storedSeries<Series: ChunkedSeries>(
        of id: SessionID, in db: PostgresConnection
    ) throws(SessionStoreError) -> Series? {
        let key = id.description
        let size = Series.bytesPerSample
        let shape = try db.query(
            "SELECT \"interval\", capacity FROM \(Series.shapeTable) WHERE session_id = $1", [.string(key)]
        ).first.map { (interval: $0.double(0), capacity: $0.int(1)) }
        guard let shape else { return nil }
        var samples: [UInt8] = []
        for row in try db.query(
            "SELECT first, samples FROM \(Series.chunkTable) WHERE session_id = $1 ORDER BY first", [.string(key)]
        ).rows {
            guard samples.count % size == 0, row.int(0) == samples.count / size, samples.count / size < shape.capacity
            else { throw .corruptRecord(id: key) }
            samples += row.blob(1)
        }
        guard let series = Series.decoded(samples, interval: shape.interval, capacity: shape.capacity) else {
            throw .corruptRecord(id: key)
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
