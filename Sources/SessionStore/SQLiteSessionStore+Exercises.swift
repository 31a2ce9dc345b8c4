import CSQLite

/// Tenants' custom exercises in the `exercises` table (schema v5): every version a row, a delete a stamp.
extension SQLiteSessionStore {
    private static let exerciseColumns = "id, tenant, version, definition, created_at, deleted_at"

    /// Stores a new version of a custom exercise in one write transaction: numbers it, checks the quota, inserts it.
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
            let (latest, isCurrent) = try db.withStatement(
                """
                SELECT max(version), coalesce(sum(deleted_at IS NULL), 0) FROM exercises
                WHERE tenant = ?1 AND id = ?2
                """
            ) { select throws(SessionStoreError) -> (Int, Bool) in
                try select.bind(tenant, at: 1)
                try select.bind(id, at: 2)
                guard try select.step() else { return (0, false) }
                return (select.int(0), select.int(1) > 0)
            }
            let (current, versions) = try db.withStatement(
                """
                SELECT count(DISTINCT CASE WHEN deleted_at IS NULL THEN id END), count(*) FROM exercises
                WHERE tenant = ?1
                """
            ) { select throws(SessionStoreError) -> (Int, Int) in
                try select.bind(tenant, at: 1)
                guard try select.step() else { return (0, 0) }
                return (select.int(0), select.int(1))
            }
            // The write lock (BEGIN IMMEDIATE) is held: no other save can take the id in another case meanwhile.
            let otherCase =
                write == .create
                ? try db.withStatement(
                    """
                    SELECT id FROM exercises
                    WHERE tenant = ?1 AND lower(id) = lower(?2) AND id <> ?2 AND deleted_at IS NULL LIMIT 1
                    """
                ) { select throws(SessionStoreError) -> String? in
                    try select.bind(tenant, at: 1)
                    try select.bind(id, at: 2)
                    return try select.step() ? select.string(0) : nil
                } : nil
            let version = try ExerciseHoldings(
                latestVersion: latest, isCurrent: isCurrent, currentInOtherCase: otherCase, currentExercises: current,
                versions: versions
            ).nextVersion(for: write, within: quota)
            let stored = StoredExercise(
                id: id, tenant: tenant, version: version, definition: definition(version), createdAt: now)
            try db.withStatement(
                """
                INSERT INTO exercises (tenant, id, version, definition, created_at) VALUES (?1, ?2, ?3, ?4, ?5)
                """
            ) { insert throws(SessionStoreError) in
                try insert.bind(stored.tenant, at: 1)
                try insert.bind(stored.id, at: 2)
                try insert.bind(stored.version, at: 3)
                try insert.bind(stored.definition, at: 4)
                try insert.bind(stored.createdAt, at: 5)
                try insert.step()
            }
            return stored
        }
    }

    /// The latest version of every current custom exercise of `tenant` (or of every tenant), by tenant then id.
    /// - Parameter tenant: The tenant, or nil for all.
    /// - Returns: The exercises.
    /// - Throws: Database errors.
    public func currentExercises(tenant: String?) throws(SessionStoreError) -> [StoredExercise] {
        let latest = "version = (SELECT max(version) FROM exercises AS v WHERE v.tenant = e.tenant AND v.id = e.id)"
        let sql =
            tenant == nil
            ? "SELECT \(Self.exerciseColumns) FROM exercises AS e WHERE deleted_at IS NULL AND \(latest) ORDER BY tenant, id"
            : "SELECT \(Self.exerciseColumns) FROM exercises AS e WHERE tenant = ?1 AND deleted_at IS NULL AND \(latest) ORDER BY id"
        let db = try database()
        return try db.withStatement(sql) { select throws(SessionStoreError) -> [StoredExercise] in
            if let tenant { try select.bind(tenant, at: 1) }
            var exercises: [StoredExercise] = []
            while try select.step() { exercises.append(Self.readExercise(from: select)) }
            return exercises
        }
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
        let sql =
            version == nil
            ? """
            SELECT \(Self.exerciseColumns) FROM exercises WHERE tenant = ?1 AND id = ?2 AND deleted_at IS NULL
            ORDER BY version DESC LIMIT 1
            """
            : "SELECT \(Self.exerciseColumns) FROM exercises WHERE tenant = ?1 AND id = ?2 AND version = ?3"
        return try db.withStatement(sql) { select throws(SessionStoreError) -> StoredExercise? in
            try select.bind(tenant, at: 1)
            try select.bind(id, at: 2)
            if let version { try select.bind(version, at: 3) }
            return try select.step() ? Self.readExercise(from: select) : nil
        }
    }

    /// Deletes a current custom exercise: stamps its rows, which stay readable by version.
    /// - Parameters:
    ///   - id: The exercise id.
    ///   - tenant: Its tenant.
    /// - Returns: Its latest version, or nil when the tenant has no current exercise with this id.
    /// - Throws: Database errors.
    public func deleteExercise(id: String, tenant: String) throws(SessionStoreError) -> Int? {
        let db = try database()
        let now = clock()
        return try db.transaction { () throws(SessionStoreError) -> Int? in
            try db.withStatement(
                "UPDATE exercises SET deleted_at = ?3 WHERE tenant = ?1 AND id = ?2 AND deleted_at IS NULL"
            ) { update throws(SessionStoreError) in
                try update.bind(tenant, at: 1)
                try update.bind(id, at: 2)
                try update.bind(now, at: 3)
                try update.step()
            }
            guard db.changes > 0 else { return nil }
            return try db.withStatement("SELECT max(version) FROM exercises WHERE tenant = ?1 AND id = ?2") {
                select throws(SessionStoreError) -> Int? in
                try select.bind(tenant, at: 1)
                try select.bind(id, at: 2)
                return try select.step() ? select.int(0) : nil
            }
        }
    }

    private static func readExercise(from select: SQLiteStatement) -> StoredExercise {
        StoredExercise(
            id: select.string(0), tenant: select.string(1), version: select.int(2), definition: select.string(3),
            createdAt: select.int64(4), deletedAt: select.optionalInt64(5))
    }
}
