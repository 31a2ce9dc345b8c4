import CSQLite

/// Programmes in the `programmes` table (schema v14): every version a row, an end a stamp.
extension SQLiteSessionStore {
    /// Stores a new version of a programme in one write transaction: numbers it, checks the quota, inserts it.
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
            let (latest, ended, versions) = try db.withStatement(
                """
                SELECT coalesce(max(CASE WHEN id = ?2 THEN version END), 0),
                       coalesce(max(CASE WHEN id = ?2 AND ended_at IS NOT NULL THEN 1 END), 0), count(*)
                FROM programmes WHERE tenant = ?1
                """
            ) { select throws(SessionStoreError) -> (Int, Bool, Int) in
                try select.bind(draft.tenant, at: 1)
                try select.bind(draft.id, at: 2)
                guard try select.step() else { return (0, false, 0) }
                return (select.int(0), select.int(1) > 0, select.int(2))
            }
            let version = try ProgrammeHoldings(latestVersion: latest, isEnded: ended, versions: versions)
                .nextVersion(for: write, maxVersions: maxVersions)
            let stored = StoredProgramme(
                id: draft.id, tenant: draft.tenant, version: version, subject: draft.subject,
                startsOn: draft.startsOn, endsOn: draft.endsOn, definition: definition(version), createdAt: now)
            try db.withStatement(
                """
                INSERT INTO programmes (tenant, id, version, subject, starts_on, ends_on, definition, created_at)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                """
            ) { insert throws(SessionStoreError) in
                try insert.bind(stored.tenant, at: 1)
                try insert.bind(stored.id, at: 2)
                try insert.bind(stored.version, at: 3)
                try insert.bind(stored.subject, at: 4)
                try insert.bind(stored.startsOn, at: 5)
                try insert.bind(stored.endsOn, at: 6)
                try insert.bind(stored.definition, at: 7)
                try insert.bind(stored.createdAt, at: 8)
                try insert.step()
            }
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
        let select = "SELECT \(SessionRows.programmeColumns) FROM programmes WHERE tenant = ?1 AND id = ?2"
        let sql = version == nil ? select + " ORDER BY version DESC LIMIT 1" : select + " AND version = ?3"
        return try db.withStatement(sql) { select throws(SessionStoreError) -> StoredProgramme? in
            try select.bind(tenant, at: 1)
            try select.bind(id, at: 2)
            if let version { try select.bind(version, at: 3) }
            return try select.step() ? SessionRows.programme(from: select) : nil
        }
    }

    /// One page of a tenant's programmes at their latest versions, newest first.
    /// - Parameter query: Tenant, filters, page size and cursor.
    /// - Returns: The page.
    /// - Throws: ``SessionStoreError/invalidCursor``; database errors.
    public func programmes(_ query: ProgrammeQuery) throws(SessionStoreError) -> ProgrammePage {
        let after = try query.after()
        let limit = query.effectiveLimit
        var sql =
            "SELECT \(SessionRows.programmeColumns) FROM programmes AS p WHERE tenant = ?1 AND \(SessionRows.latestProgramme)"
        if query.subject != nil { sql += " AND subject = ?2" }
        if let active = query.active { sql += active ? " AND ended_at IS NULL" : " AND ended_at IS NOT NULL" }
        if after != nil { sql += " AND id < ?3" }
        sql += " ORDER BY id DESC LIMIT ?4"
        let db = try database()
        let rows = try db.withStatement(sql) { select throws(SessionStoreError) -> [StoredProgramme] in
            try select.bind(query.tenant, at: 1)
            if let subject = query.subject { try select.bind(subject, at: 2) }
            if let after { try select.bind(after.description, at: 3) }
            try select.bind(limit + 1, at: 4)
            var rows: [StoredProgramme] = []
            while try select.step() { rows.append(SessionRows.programme(from: select)) }
            return rows
        }
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
        let now = clock()
        return try db.withStatement(
            "UPDATE programmes SET ended_at = ?3 WHERE tenant = ?1 AND id = ?2 AND ended_at IS NULL"
        ) { update throws(SessionStoreError) -> Bool in
            try update.bind(tenant, at: 1)
            try update.bind(id, at: 2)
            try update.bind(now, at: 3)
            try update.step()
            return db.changes > 0
        }
    }
}

/// Patient codes in the `access_codes` table (schema v14).
extension SQLiteSessionStore {
    /// Stores a new patient code after counting the subject's working ones, in one write transaction.
    /// - Throws: ``SessionStoreError/alreadyExists``, ``SessionStoreError/tooManyVersions(limit:)``; database errors.
    public func createAccessCode(_ code: StoredAccessCode, maxPerSubject: Int) throws(SessionStoreError) {
        let db = try database()
        try db.transaction { () throws(SessionStoreError) in
            let working = try db.withStatement(
                """
                SELECT count(*) FROM access_codes
                WHERE tenant = ?1 AND subject = ?2 AND revoked_at IS NULL AND expires_at > ?3
                """
            ) { select throws(SessionStoreError) -> Int in
                try select.bind(code.tenant, at: 1)
                try select.bind(code.subject, at: 2)
                try select.bind(code.createdAt, at: 3)
                return try select.step() ? select.int(0) : 0
            }
            guard working < maxPerSubject else { throw .tooManyVersions(limit: maxPerSubject) }
            do throws(SessionStoreError) {
                try db.withStatement(
                    """
                    INSERT INTO access_codes (tenant, id, subject, digest, created_at, expires_at)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                    """
                ) { insert throws(SessionStoreError) in
                    try insert.bind(code.tenant, at: 1)
                    try insert.bind(code.id, at: 2)
                    try insert.bind(code.subject, at: 3)
                    try insert.bind(blob: code.digest, at: 4)
                    try insert.bind(code.createdAt, at: 5)
                    try insert.bind(code.expiresAt, at: 6)
                    try insert.step()
                }
            } catch .database(let status, _) where status & 0xFF == SQLITE_CONSTRAINT {
                throw .alreadyExists
            }
        }
    }

    /// Patient codes of a subject, of a tenant, or every code that has not expired; oldest first.
    public func accessCodes(tenant: String?, subject: String?) throws(SessionStoreError) -> [StoredAccessCode] {
        let db = try database()
        var sql = "SELECT \(SessionRows.accessCodeColumns) FROM access_codes"
        if tenant == nil {
            sql += " WHERE expires_at > ?3"
        } else {
            sql += " WHERE tenant = ?1"
            if subject != nil { sql += " AND subject = ?2" }
        }
        sql += " ORDER BY id"
        return try db.withStatement(sql) { select throws(SessionStoreError) -> [StoredAccessCode] in
            if let tenant { try select.bind(tenant, at: 1) }
            if tenant != nil, let subject { try select.bind(subject, at: 2) }
            if tenant == nil { try select.bind(clock(), at: 3) }
            var codes: [StoredAccessCode] = []
            while try select.step() { codes.append(SessionRows.accessCode(from: select)) }
            return codes
        }
    }

    /// Revokes a working code of a subject.
    public func revokeAccessCode(
        id: String, tenant: String, subject: String
    ) throws(SessionStoreError) -> StoredAccessCode? {
        let db = try database()
        let now = clock()
        return try db.transaction { () throws(SessionStoreError) -> StoredAccessCode? in
            try db.withStatement(
                """
                UPDATE access_codes SET revoked_at = ?4
                WHERE tenant = ?1 AND subject = ?2 AND id = ?3 AND revoked_at IS NULL
                """
            ) { update throws(SessionStoreError) in
                try update.bind(tenant, at: 1)
                try update.bind(subject, at: 2)
                try update.bind(id, at: 3)
                try update.bind(now, at: 4)
                try update.step()
            }
            guard db.changes > 0 else { return nil }
            return try db.withStatement(
                "SELECT \(SessionRows.accessCodeColumns) FROM access_codes WHERE tenant = ?1 AND id = ?2"
            ) { select throws(SessionStoreError) -> StoredAccessCode? in
                try select.bind(tenant, at: 1)
                try select.bind(id, at: 2)
                return try select.step() ? SessionRows.accessCode(from: select) : nil
            }
        }
    }
}
