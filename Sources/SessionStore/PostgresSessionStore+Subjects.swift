extension PostgresSessionStore {
    /// A page of the tenant's subjects (``SubjectQuery``), read from the `sessions_by_subject` index in its order
    /// (the column's collation is `C`: bytes, as SQLite compares them).
    /// - Parameter query: Tenant, prefix, page size and cursor.
    /// - Returns: The page.
    /// - Throws: ``SessionStoreError/invalidCursor``; database errors.
    public func subjects(_ query: SubjectQuery) throws(SessionStoreError) -> SubjectPage {
        let range = try query.range()
        let limit = query.effectiveLimit
        let sql = SQLiteSessionStore.subjectsSQL(
            inclusive: range.inclusive, bounded: range.below != nil, placeholder: { "$\($0)" })
        var parameters: [PostgresValue] = [.string(query.tenant), .string(range.from), .int(limit + 1)]
        if let below = range.below { parameters.append(.string(below)) }
        let db = try database()
        let rows = try db.query(sql, parameters).rows.map { row in
            SubjectEntry(subject: row.string(0), sessions: Int(row.int64(1)), lastStartedAt: row.int64(2))
        }
        return SubjectQuery.page(rows, limit: limit)
    }
}
