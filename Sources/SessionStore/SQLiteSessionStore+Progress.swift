extension SQLiteSessionStore {
    /// One subject's latest sessions in a window, oldest first, read from `sessions` alone.
    ///
    /// The latest `limit + 1` rows are read newest first through `sessions_by_subject` (or, with an exercise,
    /// `sessions_by_subject_exercise`), without a sort; the extra row only says that older ones were left out, and
    /// the page is turned oldest first in memory.
    /// - Parameter query: Tenant, subject, filters and limit.
    /// - Returns: The sessions, oldest first, and the cursor of the older ones left out.
    /// - Throws: ``SessionStoreError/invalidCursor``; ``SessionStoreError/corruptRecord(id:)``; database errors.
    /// - Complexity: O(limit) rows read.
    public func progress(_ query: ProgressQuery) throws(SessionStoreError) -> ProgressPage {
        let before = try query.cursor.map { text throws(SessionStoreError) in try SessionCursor(parsing: text) }
        let limit = query.effectiveLimit
        let db = try database()
        var rows = try db.withStatement(Self.progressSQL(for: query)) {
            select throws(SessionStoreError) -> [SessionRows.ProgressRow] in
            try select.bind(query.tenant, at: 1)
            try select.bind(query.subject, at: 2)
            if let exercise = query.exercise { try select.bind(exercise, at: 3) }
            if let from = query.from { try select.bind(from, at: 4) }
            if let to = query.to { try select.bind(to, at: 5) }
            if let before {
                try select.bind(before.startedAt, at: 7)
                try select.bind(before.id.description, at: 8)
            }
            try select.bind(limit + 1, at: 6)
            var rows: [SessionRows.ProgressRow] = []
            rows.reserveCapacity(min(limit + 1, 64))
            while try select.step() { rows.append(try SessionRows.progressRow(from: select)) }
            return rows
        }
        let next = SessionCursor.cut(&rows, to: limit) { ($0.startedAt, $0.id) }
        return ProgressPage(entries: rows.reversed().map(\.entry), next: next)
    }

    /// The progress statement for the filters `query` uses (one cached statement per combination): numbered
    /// parameters `?1` tenant, `?2` subject, `?3` exercise, `?4` from, `?5` to, `?6` the row limit, `?7`/`?8` the
    /// cursor's start time and id.
    static func progressSQL(for query: ProgressQuery) -> String {
        var sql = "SELECT \(SessionRows.progressColumns) FROM sessions WHERE tenant = ?1 AND subject = ?2"
        if query.exercise != nil { sql += " AND exercise = ?3" }
        if query.from != nil { sql += " AND started_at >= ?4" }
        if query.to != nil { sql += " AND started_at < ?5" }
        if !query.includesDemo { sql += " AND demo = 0" }
        if query.cursor != nil { sql += " AND (started_at, id) < (?7, ?8)" }
        return sql + " ORDER BY started_at DESC, id DESC LIMIT ?6"
    }
}
