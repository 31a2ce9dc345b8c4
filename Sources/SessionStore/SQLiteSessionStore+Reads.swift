import CSQLite
public import MotionCore

extension SQLiteSessionStore {
    /// A live session's engine state as of its last checkpoint, and the timestamp of the last pose it covers.
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    /// - Returns: The state, or nil when this tenant has no such session, it has ended, or none was kept.
    /// - Throws: Database errors.
    public func engineState(id: SessionID, tenant: String) throws(SessionStoreError) -> (state: [UInt8], t: Double?)? {
        let db = try database()
        return try db.withStatement(
            """
            SELECT engine_state, checkpoint_t FROM sessions
            WHERE id = ?1 AND tenant = ?2 AND status = 'live' AND engine_state IS NOT NULL
            """
        ) { query throws(SessionStoreError) -> (state: [UInt8], t: Double?)? in
            try query.bind(id.description, at: 1)
            try query.bind(tenant, at: 2)
            guard try query.step() else { return nil }
            return (query.blob(0), query.optionalDouble(1))
        }
    }

    /// One session with its reps and series, read in one snapshot.
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    /// - Returns: The session, or nil if this tenant has none with this id.
    /// - Throws: ``SessionStoreError/corruptRecord(id:)``; database errors.
    public func session(id: SessionID, tenant: String) throws(SessionStoreError) -> StoredSession? {
        let db = try database()
        return try db.readTransaction { () throws(SessionStoreError) -> StoredSession? in
            try wholeSession(id: id, tenant: tenant, in: db)
        }
    }

    /// What continuing a session needs, read in one snapshot: the session with reps and series, its resumption
    /// record, the engine state of its last checkpoint and the time of its last write.
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    /// - Returns: The resume point, or nil if this tenant has no such session.
    /// - Throws: ``SessionStoreError/corruptRecord(id:)``; database errors.
    public func resumePoint(id: SessionID, tenant: String) throws(SessionStoreError) -> ResumePoint? {
        let db = try database()
        return try db.readTransaction { () throws(SessionStoreError) -> ResumePoint? in
            guard let session = try wholeSession(id: id, tenant: tenant, in: db) else { return nil }
            return try db.withStatement(
                "SELECT \(SessionRows.resumeColumns) FROM sessions WHERE id = ?1 AND tenant = ?2"
            ) { select throws(SessionStoreError) -> ResumePoint? in
                try select.bind(id.description, at: 1)
                try select.bind(tenant, at: 2)
                guard try select.step() else { return nil }
                return SessionRows.resumePoint(of: session, from: select)
            }
        }
    }

    /// Every live session, oldest write first.
    /// - Returns: The sessions.
    /// - Throws: ``SessionStoreError/corruptRecord(id:)``; database errors.
    public func liveSessions() throws(SessionStoreError) -> [LiveSessionEntry] {
        let db = try database()
        return try db.withStatement(
            "SELECT id, tenant, updated_at, resume_digest, holder FROM sessions WHERE status = 'live' ORDER BY updated_at"
        ) { select throws(SessionStoreError) -> [LiveSessionEntry] in
            var entries: [LiveSessionEntry] = []
            while try select.step() {
                guard let id = select.withUTF8(0, { SessionID(utf8: $0) }) else {
                    throw .corruptRecord(id: select.string(0))
                }
                entries.append(
                    LiveSessionEntry(
                        id: id, tenant: select.string(1), updatedAt: select.int64(2),
                        tokenDigest: select.isNull(3) ? nil : select.blob(3), holder: select.optionalString(4)))
            }
            return entries
        }
    }

    /// Whether a client is attached to each of these live sessions, as their holders last wrote it.
    /// - Parameters:
    ///   - ids: The sessions.
    ///   - tenant: Their tenant.
    /// - Returns: The flags of those that are live and have one.
    /// - Throws: Database errors.
    public func connected(_ ids: [SessionID], tenant: String) throws(SessionStoreError) -> [SessionID: Bool] {
        guard !ids.isEmpty else { return [:] }
        let db = try database()
        let list = "[" + ids.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        return try db.withStatement(
            """
            SELECT id, connected FROM sessions
            WHERE id IN (SELECT value FROM json_each(?1)) AND tenant = ?2 AND status = 'live' AND connected IS NOT NULL
            """
        ) { select throws(SessionStoreError) -> [SessionID: Bool] in
            try select.bind(list, at: 1)
            try select.bind(tenant, at: 2)
            var flags: [SessionID: Bool] = [:]
            while try select.step() {
                guard let id = select.withUTF8(0, { SessionID(utf8: $0) }) else { continue }
                flags[id] = select.int64(1) != 0
            }
            return flags
        }
    }

    /// One session with its reps and series, inside the caller's transaction.
    private func wholeSession(
        id: SessionID, tenant: String, in db: SQLiteConnection
    ) throws(SessionStoreError) -> StoredSession? {
        let found = try db.withStatement(
            "SELECT \(SessionRows.sessionColumns) FROM sessions WHERE id = ?1 AND tenant = ?2"
        ) { select throws(SessionStoreError) -> StoredSession? in
            try select.bind(id.description, at: 1)
            try select.bind(tenant, at: 2)
            return try select.step() ? try SessionRows.session(from: select) : nil
        }
        guard var session = found else { return nil }
        session.summary.reps = try reps(of: id.description, in: db)
        session.summary.series = try storedSeries(of: id, in: db) ?? ValueSeries()
        session.summary.motion = try storedSeries(of: id, in: db) ?? MotionSeries()
        return session
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
        return try db.readTransaction { () throws(SessionStoreError) -> Series? in
            let exists = try db.withStatement("SELECT 1 FROM sessions WHERE id = ?1 AND tenant = ?2") {
                select throws(SessionStoreError) in
                try select.bind(id.description, at: 1)
                try select.bind(tenant, at: 2)
                return try select.step()
            }
            guard exists else { return nil }
            return try storedSeries(of: id, in: db) ?? Series()
        }
    }

    /// One page of a tenant's sessions, newest first, read in one snapshot: each with its summary rendered
    /// (``SummaryRendering``), or, when it has none at this store's version (live sessions, those stored before
    /// renderings were kept, or every session when the query ``SessionQuery/readsWhole``), read whole with its reps
    /// but without series.
    ///
    /// Keyset pagination on `(started_at, id)` descending, served by the `(tenant, …, started_at, id)` indexes.
    /// - Parameter query: Tenant, filters, page size and cursor.
    /// - Returns: The page and the cursor of the next one.
    /// - Throws: ``SessionStoreError/invalidCursor``; ``SessionStoreError/corruptRecord(id:)``; database errors.
    public func list(_ query: SessionQuery) throws(SessionStoreError) -> SessionPage {
        let after = try query.cursor.map { text throws(SessionStoreError) in try SessionCursor(parsing: text) }
        let limit = query.effectiveLimit
        let sql = Self.listSQL(for: query)
        let version = query.readsWhole ? nil : rendering?.version
        let db = try database()
        return try db.readTransaction { () throws(SessionStoreError) -> SessionPage in
            var listing = try db.withStatement(sql) { select throws(SessionStoreError) -> ListingAssembly in
                try bindFilters(of: query, to: select)
                if let after {
                    try select.bind(after.startedAt, at: 7)
                    try select.bind(after.id.description, at: 8)
                }
                // One extra row tells whether another page follows.
                try select.bind(limit + 1, at: 9)
                var listing = ListingAssembly(capacity: limit + 1)
                while try select.step() { try listing.add(select, version: version) }
                return listing
            }
            let next = listing.cut(to: limit)
            let unrendered = listing.unrendered
            guard !unrendered.isEmpty else { return listing.page(whole: [], next: next) }
            let ids = Self.jsonArray(of: unrendered)
            var sessions = try db.withStatement(
                "SELECT \(SessionRows.sessionColumns) FROM sessions WHERE id IN (SELECT value FROM json_each(?1))"
            ) { select throws(SessionStoreError) -> [StoredSession] in
                try select.bind(ids, at: 1)
                var sessions: [StoredSession] = []
                sessions.reserveCapacity(unrendered.count)
                while try select.step() { sessions.append(try SessionRows.session(from: select)) }
                return sessions
            }
            try readReps(into: &sessions, ids: ids, in: db)
            return listing.page(whole: sessions, next: next)
        }
    }

    /// How many of a tenant's sessions match the query's filters, all pages together (its cursor and limit are
    /// ignored).
    ///
    /// Counted through the `(tenant, …, started_at, id)` index a listing with these filters takes: with one of
    /// subject, exercise or status (or subject and exercise) and a time window, only that index is read.
    /// - Parameter query: Tenant and filters.
    /// - Returns: The number of matching sessions.
    /// - Throws: Database errors.
    /// - Complexity: O(matching sessions) index entries read.
    public func count(_ query: SessionQuery) throws(SessionStoreError) -> Int {
        var filters = query
        filters.cursor = nil
        let sql = "SELECT count(*) FROM sessions WHERE " + Self.filterSQL(for: filters)
        let db = try database()
        return try db.withStatement(sql) { select throws(SessionStoreError) -> Int in
            try bindFilters(of: filters, to: select)
            guard try select.step() else { return 0 }
            return select.int(0)
        }
    }

    /// Binds the parameters of ``filterSQL(for:)`` that `query` uses (not the cursor's nor the limit).
    private func bindFilters(of query: SessionQuery, to select: SQLiteStatement) throws(SessionStoreError) {
        try select.bind(query.tenant, at: 1)
        if let subject = query.subject { try select.bind(subject, at: 2) }
        if let exercise = query.exercise { try select.bind(exercise, at: 3) }
        if let status = query.status { try select.bind(status.rawValue, at: 4) }
        if let from = query.from { try select.bind(from, at: 5) }
        if let to = query.to { try select.bind(to, at: 6) }
        if let prefix = query.subjectPrefix { try select.bind(prefix, at: 10) }
    }

    /// The listing statement for the filters `query` uses (one cached statement per combination): numbered
    /// parameters `?1` tenant, `?2` subject, `?3` exercise, `?4` status, `?5` from, `?6` to, `?7`/`?8` the cursor's
    /// start time and id, `?9` the row limit, `?10` the subject prefix.
    static func listSQL(for query: SessionQuery) -> String {
        "SELECT \(SessionRows.listedColumns) FROM sessions WHERE " + filterSQL(for: query)
            + " ORDER BY started_at DESC, id DESC LIMIT ?9"
    }

    /// The `WHERE` condition of ``listSQL(for:)``, numbered alike.
    static func filterSQL(for query: SessionQuery) -> String {
        var sql = "tenant = ?1"
        if query.subject != nil { sql += " AND subject = ?2" }
        if query.subjectPrefix != nil { sql += " AND substr(subject, 1, length(?10)) = ?10" }
        if query.exercise != nil { sql += " AND exercise = ?3" }
        if query.status != nil { sql += " AND status = ?4" }
        if query.from != nil { sql += " AND started_at >= ?5" }
        if query.to != nil { sql += " AND started_at < ?6" }
        if query.cursor != nil { sql += " AND (started_at, id) < (?7, ?8)" }
        return sql
    }

    /// One session's reps, in order.
    private func reps(of key: String, in db: SQLiteConnection) throws(SessionStoreError) -> [Rep] {
        try db.withStatement(
            "SELECT \(SessionRows.repColumns) FROM reps WHERE session_id = ?1 ORDER BY position"
        ) { select throws(SessionStoreError) -> [Rep] in
            try select.bind(key, at: 1)
            var reps: [Rep] = []
            while try select.step() {
                guard let rep = SessionRows.rep(from: select, at: 0) else { throw .corruptRecord(id: key) }
                reps.append(rep)
            }
            return reps
        }
    }

    /// Fills in the reps of a page's sessions (those of `ids`) with one statement rather than one per session.
    ///
    /// The ids go in as one JSON array (``jsonArray(of:)``), which `json_each` turns into the `IN` list; rows come
    /// back in primary-key order, `(session_id, position)`, so no sort is needed, and each row's session is found by
    /// its id (parsed in place, no `String`). Each id is still one primary-key search of `reps`, but the statement is
    /// bound, stepped and reset once per page.
    func readReps(
        into sessions: inout [StoredSession], ids: String, in db: SQLiteConnection
    ) throws(SessionStoreError) {
        guard !sessions.isEmpty else { return }
        try db.withStatement(
            "SELECT session_id, \(SessionRows.repColumns) FROM reps"
                + " WHERE session_id IN (SELECT value FROM json_each(?1)) ORDER BY session_id, position"
        ) { select throws(SessionStoreError) in
            try select.bind(ids, at: 1)
            var reps = SessionRows.PageReps(of: sessions)
            while try select.step() { try reps.add(select, to: &sessions) }
        }
    }

    /// `["id","id",…]`, written in one buffer: ids are Crockford base32, which needs no escaping in JSON.
    static func jsonArray(of ids: [SessionID]) -> String {
        String(unsafeUninitializedCapacity: ids.count * (SessionID.textLength + 3) + 2) { buffer in
            buffer[0] = UInt8(ascii: "[")
            var end = 1
            for (index, id) in ids.enumerated() {
                if index > 0 {
                    buffer[end] = UInt8(ascii: ",")
                    end += 1
                }
                buffer[end] = UInt8(ascii: "\"")
                id.write(to: buffer, at: end + 1)
                end += SessionID.textLength + 1
                buffer[end] = UInt8(ascii: "\"")
                end += 1
            }
            buffer[end] = UInt8(ascii: "]")
            return end + 1
        }
    }

    /// A session's series: its interval and capacity, and its chunks of samples in order (``ChunkAssembly``).
    private func storedSeries<Series: ChunkedSeries>(
        of id: SessionID, in db: SQLiteConnection
    ) throws(SessionStoreError) -> Series? {
        let key = id.description
        let shape = try db.withStatement("SELECT interval, capacity FROM \(Series.shapeTable) WHERE session_id = ?1") {
            select throws(SessionStoreError) -> (interval: Double, capacity: Int)? in
            try select.bind(key, at: 1)
            guard try select.step() else { return nil }
            return (select.double(0), select.int(1))
        }
        guard let shape else { return nil }
        let chunks = try db.withStatement(
            "SELECT first, samples FROM \(Series.chunkTable) WHERE session_id = ?1 ORDER BY first"
        ) { select throws(SessionStoreError) -> ChunkAssembly<Series> in
            try select.bind(key, at: 1)
            var chunks = ChunkAssembly<Series>()
            while try select.step() {
                guard chunks.append(first: select.int(0), samples: select.blob(1)) else {
                    throw .corruptRecord(id: key)
                }
            }
            return chunks
        }
        guard let series = chunks.series(interval: shape.interval, capacity: shape.capacity) else {
            throw .corruptRecord(id: key)
        }
        return series
    }
}
