/// Programmes in the `programmes` table: every version a row, an end a stamp.
extension PostgresSessionStore {
    /// The advisory lock class of a tenant's programmes (the tenant's hash is the other key): saves of one tenant's
    /// programmes, from any node, take turns, so two can neither share a version nor pass the quota together.
    private static let programmeLock: Int32 = 0x6D65_7802

    /// Stores a new version of a programme in one transaction: numbers it, checks the quota, inserts it.
    /// - Parameters:
    ///   - draft: The programme's id, tenant, subject and dates.
    ///   - write: Whether the id must be unused (create) or a running programme's (update).
    ///   - maxVersions: The most programme versions the tenant may store.
    ///   - definition: The text for the version number it is given.
    /// - Returns: What was stored.
    /// - Throws: ``SessionStoreError/alreadyExists``, ``SessionStoreError/notFound``, ``SessionStoreError/ended``,
    ///   ``SessionStoreError/tooManyVersions(limit:)``; database errors.
    public func saveProgramme(
        _ draft: ProgrammeDraft, as write: ExerciseWrite, maxVersions: Int, definition: @Sendable (Int) -> String
    ) throws(SessionStoreError) -> StoredProgramme {
        let db = try database()
        let now = clock()
        return try db.transaction { () throws(SessionStoreError) -> StoredProgramme in
            try db.query("SELECT pg_advisory_xact_lock(\(Self.programmeLock), hashtext($1))", [.string(draft.tenant)])
            let row = try db.query(
                """
                SELECT coalesce(max(version) FILTER (WHERE id = $2), 0),
                       count(*) FILTER (WHERE id = $2 AND ended_at IS NOT NULL), count(*)
                FROM programmes WHERE tenant = $1
                """, [.string(draft.tenant), .string(draft.id)]
            ).first
            let version = try ProgrammeHoldings(
                latestVersion: row?.int(0) ?? 0, isEnded: (row?.int(1) ?? 0) > 0, versions: row?.int(2) ?? 0
            ).nextVersion(for: write, maxVersions: maxVersions)
            let stored = StoredProgramme(
                id: draft.id, tenant: draft.tenant, version: version, subject: draft.subject,
                startsOn: draft.startsOn, endsOn: draft.endsOn, definition: definition(version), createdAt: now)
            try db.query(
                """
                INSERT INTO programmes (tenant, id, version, subject, starts_on, ends_on, definition, created_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                """,
                [
                    .string(stored.tenant), .string(stored.id), .int(stored.version), .string(stored.subject),
                    .string(stored.startsOn), .string(stored.endsOn), .string(stored.definition),
                    .int(stored.createdAt),
                ])
            return stored
        }
    }

    /// One version of a programme, or its latest.
    /// - Parameters:
    ///   - id: The programme id.
    ///   - tenant: Its tenant.
    ///   - version: The version, or nil for the latest.
    /// - Returns: The version, or nil.
    /// - Throws: Database errors.
    public func programme(id: String, tenant: String, version: Int?) throws(SessionStoreError) -> StoredProgramme? {
        let db = try database()
        let select = "SELECT \(SessionRows.programmeColumns) FROM programmes WHERE tenant = $1 AND id = $2"
        let rows =
            if let version {
                try db.query(select + " AND version = $3", [.string(tenant), .string(id), .int(version)])
            } else {
                try db.query(select + " ORDER BY version DESC LIMIT 1", [.string(tenant), .string(id)])
            }
        return rows.first.map { SessionRows.programme(from: $0) }
    }

    /// One page of a tenant's programmes at their latest versions, newest first.
    /// - Parameter query: Tenant, filters, page size and cursor.
    /// - Returns: The page.
    /// - Throws: ``SessionStoreError/invalidCursor``; database errors.
    public func programmes(_ query: ProgrammeQuery) throws(SessionStoreError) -> ProgrammePage {
        let after = try query.after()
        let limit = query.effectiveLimit
        var sql =
            "SELECT \(SessionRows.programmeColumns) FROM programmes AS p WHERE tenant = $1 AND \(SessionRows.latestProgramme)"
        var parameters: [PostgresValue] = [.string(query.tenant), .int(limit + 1)]
        if let subject = query.subject {
            parameters.append(.string(subject))
            sql += " AND subject = $\(parameters.count)"
        }
        if let active = query.active { sql += active ? " AND ended_at IS NULL" : " AND ended_at IS NOT NULL" }
        if let after {
            parameters.append(.string(after.description))
            sql += " AND id < $\(parameters.count)"
        }
        sql += " ORDER BY id DESC LIMIT $2"
        let db = try database()
        let rows = try db.query(sql, parameters).rows.map { SessionRows.programme(from: $0) }
        return ProgrammeQuery.page(rows, limit: limit)
    }

    /// Ends a running programme: stamps its rows.
    /// - Parameters:
    ///   - id: The programme id.
    ///   - tenant: Its tenant.
    /// - Returns: Whether a running programme was ended.
    /// - Throws: Database errors.
    public func endProgramme(id: String, tenant: String) throws(SessionStoreError) -> Bool {
        let db = try database()
        let rows = try db.query(
            "UPDATE programmes SET ended_at = $3 WHERE tenant = $1 AND id = $2 AND ended_at IS NULL RETURNING version",
            [.string(tenant), .string(id), .int(clock())])
        return rows.first != nil
    }
}

/// Patient codes in the `access_codes` table.
extension PostgresSessionStore {
    /// The advisory lock class of a tenant's patient codes, so that two creates cannot pass the quota together.
    private static let accessCodeLock: Int32 = 0x6D65_7803

    /// Stores a new patient code after counting the subject's working ones, in one transaction.
    /// - Throws: ``SessionStoreError/alreadyExists``, ``SessionStoreError/tooManyVersions(limit:)``; database errors.
    public func createAccessCode(_ code: StoredAccessCode, maxPerSubject: Int) throws(SessionStoreError) {
        let db = try database()
        do throws(SessionStoreError) {
            try db.transaction { () throws(SessionStoreError) in
                try db.query(
                    "SELECT pg_advisory_xact_lock(\(Self.accessCodeLock), hashtext($1))", [.string(code.tenant)])
                let working =
                    try db.query(
                        """
                        SELECT count(*) FROM access_codes
                        WHERE tenant = $1 AND subject = $2 AND revoked_at IS NULL AND expires_at > $3
                        """, [.string(code.tenant), .string(code.subject), .int(code.createdAt)]
                    ).first?.int(0) ?? 0
                guard working < maxPerSubject else { throw .tooManyVersions(limit: maxPerSubject) }
                try db.query(
                    """
                    INSERT INTO access_codes (tenant, id, subject, digest, created_at, expires_at)
                    VALUES ($1, $2, $3, $4, $5, $6)
                    """,
                    [
                        .string(code.tenant), .string(code.id), .string(code.subject), .bytes(code.digest),
                        .int(code.createdAt), .int(code.expiresAt),
                    ])
            }
        } catch .server(let sqlState, _) where sqlState == "23505" {
            throw .alreadyExists
        }
    }

    /// Patient codes of a subject, of a tenant, or every code that has not expired; oldest first.
    public func accessCodes(tenant: String?, subject: String?) throws(SessionStoreError) -> [StoredAccessCode] {
        let db = try database()
        let select = "SELECT \(SessionRows.accessCodeColumns) FROM access_codes"
        let rows =
            if let tenant, let subject {
                try db.query(
                    select + " WHERE tenant = $1 AND subject = $2 ORDER BY id", [.string(tenant), .string(subject)])
            } else if let tenant {
                try db.query(select + " WHERE tenant = $1 ORDER BY id", [.string(tenant)])
            } else {
                try db.query(select + " WHERE expires_at > $1 ORDER BY id", [.int(clock())])
            }
        return rows.rows.map { SessionRows.accessCode(from: $0) }
    }

    /// Revokes a working code of a subject.
    public func revokeAccessCode(
        id: String, tenant: String, subject: String
    ) throws(SessionStoreError) -> StoredAccessCode? {
        let db = try database()
        return try db.query(
            """
            UPDATE access_codes SET revoked_at = $4
            WHERE tenant = $1 AND subject = $2 AND id = $3 AND revoked_at IS NULL
            RETURNING \(SessionRows.accessCodeColumns)
            """, [.string(tenant), .string(subject), .string(id), .int(clock())]
        ).first.map { SessionRows.accessCode(from: $0) }
    }
}
