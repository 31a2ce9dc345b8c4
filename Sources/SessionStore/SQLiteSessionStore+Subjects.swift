extension SQLiteSessionStore {
    /// A page of the tenant's subjects (``SubjectQuery``), read from the `sessions_by_subject` index in its order.
    /// - Parameter query: Tenant, prefix, page size and cursor.
    /// - Returns: The page.
    /// - Throws: ``SessionStoreError/invalidCursor``; database errors.
    public func subjects(_ query: SubjectQuery) throws(SessionStoreError) -> SubjectPage {
        let range = try query.range()
        let limit = query.effectiveLimit
        let sql = Self.subjectsSQL(inclusive: range.inclusive, bounded: range.below != nil, placeholder: { "?\($0)" })
        let db = try database()
        let rows = try db.withStatement(sql) { select throws(SessionStoreError) -> [SubjectEntry] in
            try select.bind(query.tenant, at: 1)
            try select.bind(range.from, at: 2)
            try select.bind(limit + 1, at: 3)
            if let below = range.below { try select.bind(below, at: 4) }
            var rows: [SubjectEntry] = []
            while try select.step() {
                rows.append(
                    SubjectEntry(subject: select.string(0), sessions: select.int(1), lastStartedAt: select.int64(2)))
            }
            return rows
        }
        return SubjectQuery.page(rows, limit: limit)
    }

    /// The statement of a subjects page, parameters 1 tenant, 2 the range's start, 3 the row limit, 4 its end (when
    /// `bounded`); both stores compare the subjects' text by its bytes, so one statement serves both.
    static func subjectsSQL(inclusive: Bool, bounded: Bool, placeholder: (Int) -> String) -> String {
        var sql = "SELECT subject, count(*), max(started_at) FROM sessions WHERE tenant = \(placeholder(1))"
        sql += " AND subject \(inclusive ? ">=" : ">") \(placeholder(2))"
        if bounded { sql += " AND subject < \(placeholder(4))" }
        return sql + " GROUP BY subject ORDER BY subject LIMIT \(placeholder(3))"
    }
}
