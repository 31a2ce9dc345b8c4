/// Tenants' custom exercises in the `exercises` table: every version a row, a delete a stamp.
extension PostgresSessionStore {
    private static let exerciseColumns = "id, tenant, version, definition, created_at, deleted_at"

    /// The advisory lock class of a tenant's exercises (the tenant's hash is the other key): saves of one tenant's
    /// exercises, from any node, take turns, so two can neither share a version nor pass the quota together.
    private static let exerciseLock: Int32 = 0x6D65_7801

    /// Stores a new version of a custom exercise in one transaction: numbers it, checks the quota, inserts it.
    /// - Parameters:
    ///   - id: The exercise id.
    ///   - tenant: Its tenant.
    ///   - write: Whether a current exercise must be absent (create) or present (update).
    ///   - quota: The tenant's limits.
    ///   - definition: The text for the version number it is given.
    /// - Returns: What was stored.
    /// - Throws: ``SessionStoreError/alreadyExists``, ``SessionStoreError/alreadyExistsAs(id:)`` (a create whose id
    ///   a current exercise has in another case), ``SessionStoreError/notFound``,
    ///   ``SessionStoreError/tooManyExercises(limit:)``, ``SessionStoreError/tooManyVersions(limit:)``; database
    ///   errors.
    public func saveExercise(
        id: String, tenant: String, as write: ExerciseWrite, quota: ExerciseQuota,
        definition: @Sendable (Int) -> String
    ) throws(SessionStoreError) -> StoredExercise {
        let db = try database()
        let now = clock()
        return try db.transaction { () throws(SessionStoreError) -> StoredExercise in
            try db.query("SELECT pg_advisory_xact_lock(\(Self.exerciseLock), hashtext($1))", [.string(tenant)])
            let mine = try db.query(
                """
                SELECT coalesce(max(version), 0), count(*) FILTER (WHERE deleted_at IS NULL) FROM exercises
                WHERE tenant = $1 AND id = $2
                """, [.string(tenant), .string(id)]
            ).first
            let all = try db.query(
                """
                SELECT count(DISTINCT id) FILTER (WHERE deleted_at IS NULL), count(*) FROM exercises
                WHERE tenant = $1
                """, [.string(tenant)]
            ).first
            // The tenant's lock is held: no other save, on any node, can take the id in another case meanwhile.
            let otherCase =
                write == .create
                ? try db.query(
                    """
                    SELECT id FROM exercises
                    WHERE tenant = $1 AND lower(id) = lower($2) AND id <> $2 AND deleted_at IS NULL LIMIT 1
                    """, [.string(tenant), .string(id)]
                ).first?.string(0) : nil
            let version = try ExerciseHoldings(
                latestVersion: mine?.int(0) ?? 0, isCurrent: (mine?.int(1) ?? 0) > 0, currentInOtherCase: otherCase,
                currentExercises: all?.int(0) ?? 0, versions: all?.int(1) ?? 0
            ).nextVersion(for: write, within: quota)
            let stored = StoredExercise(
                id: id, tenant: tenant, version: version, definition: definition(version), createdAt: now)
            try db.query(
                "INSERT INTO exercises (tenant, id, version, definition, created_at) VALUES ($1, $2, $3, $4, $5)",
                [
                    .string(stored.tenant), .string(stored.id), .int(stored.version), .string(stored.definition),
                    .int(stored.createdAt),
                ])
            return stored
        }
    }

    /// The latest version of every current custom exercise of `tenant` (or of every tenant), by tenant then id.
    /// - Parameter tenant: The tenant, or nil for all.
    /// - Returns: The exercises.
    /// - Throws: Database errors.
    public func currentExercises(tenant: String?) throws(SessionStoreError) -> [StoredExercise] {
        let latest = "version = (SELECT max(version) FROM exercises AS v WHERE v.tenant = e.tenant AND v.id = e.id)"
        let select = "SELECT \(Self.exerciseColumns) FROM exercises AS e WHERE deleted_at IS NULL AND \(latest)"
        let db = try database()
        let rows: PostgresRows
        if let tenant {
            rows = try db.query(select + " AND tenant = $1 ORDER BY id", [.string(tenant)])
        } else {
            rows = try db.query(select + " ORDER BY tenant, id")
        }
        return rows.rows.map(Self.readExercise(from:))
    }

    /// One version of a custom exercise, or the latest of a current one.
    /// - Parameters:
    ///   - id: The exercise id.
    ///   - tenant: Its tenant.
    ///   - version: The version, or nil for the latest of a current exercise.
    /// - Returns: The version, or nil.
    /// - Throws: Database errors.
    public func exercise(id: String, tenant: String, version: Int?) throws(SessionStoreError) -> StoredExercise? {
        let db = try database()
        let rows: PostgresRows
        if let version {
            rows = try db.query(
                "SELECT \(Self.exerciseColumns) FROM exercises WHERE tenant = $1 AND id = $2 AND version = $3",
                [.string(tenant), .string(id), .int(version)])
        } else {
            rows = try db.query(
                """
                SELECT \(Self.exerciseColumns) FROM exercises WHERE tenant = $1 AND id = $2 AND deleted_at IS NULL
                ORDER BY version DESC LIMIT 1
                """, [.string(tenant), .string(id)])
        }
        return rows.first.map(Self.readExercise(from:))
    }

    /// Deletes a current custom exercise: stamps its rows, which stay readable by version.
    /// - Parameters:
    ///   - id: The exercise id.
    ///   - tenant: Its tenant.
    /// - Returns: Its latest version, or nil when the tenant has no current exercise with this id.
    /// - Throws: Database errors.
    public func deleteExercise(id: String, tenant: String) throws(SessionStoreError) -> Int? {
        let db = try database()
        let row = try db.query(
            """
            WITH stamped AS (
                UPDATE exercises SET deleted_at = $3 WHERE tenant = $1 AND id = $2 AND deleted_at IS NULL
                RETURNING version
            )
            SELECT max(version) FROM stamped
            """, [.string(tenant), .string(id), .int(clock())]
        ).first
        guard let row, !row.isNull(0) else { return nil }
        return row.int(0)
    }

    private static func readExercise(from row: PostgresRow) -> StoredExercise {
        StoredExercise(
            id: row.string(0), tenant: row.string(1), version: row.int(2), definition: row.string(3),
            createdAt: row.int64(4), deletedAt: row.optionalInt64(5))
    }
}
