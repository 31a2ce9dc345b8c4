/// The PostgreSQL schema as an ordered list of migrations; the `schema_migrations` table records each one applied.
///
/// A migration is never edited once released: a change is a new migration at the end. Opening a store applies the
/// missing ones in one transaction that first takes a transaction-scoped advisory lock, so nodes starting together
/// migrate once, one after the other; a failure rolls back every step. Version 1 is the SQLite schema's version 7
/// (SQLiteSchema.swift): the same tables, columns and meanings, with PostgreSQL types and byte-order (`"C"`)
/// collation for text, as SQLite compares it.
enum PostgresSchema {
    /// One step: the SQL that takes the schema from the version before to `version`.
    struct Migration {
        let version: Int
        let sql: String
    }

    /// The advisory lock key that serializes migrations (any fixed 64-bit number the application owns).
    static let migrationLock: Int64 = 0x6D6F_7469_6F6E_0001

    /// Every migration, in order; the newest version is the last one's.
    static let migrations: [Migration] = [
        Migration(
            version: 1,
            sql: """
                CREATE TABLE sessions (
                    id TEXT COLLATE "C" PRIMARY KEY,
                    tenant TEXT COLLATE "C" NOT NULL,
                    subject TEXT COLLATE "C",
                    exercise TEXT COLLATE "C" NOT NULL,
                    side TEXT COLLATE "C",
                    status TEXT COLLATE "C" NOT NULL CHECK (status IN ('live', 'finished', 'abandoned')),
                    started_at BIGINT NOT NULL,
                    ended_at BIGINT,
                    updated_at BIGINT NOT NULL,
                    first_t DOUBLE PRECISION,
                    last_t DOUBLE PRECISION,
                    frames BIGINT NOT NULL,
                    visible_frames BIGINT NOT NULL,
                    rep_count BIGINT NOT NULL,
                    rejected_count BIGINT NOT NULL,
                    best DOUBLE PRECISION,
                    baseline DOUBLE PRECISION,
                    fault_counts TEXT COLLATE "C" NOT NULL DEFAULT '',
                    exercise_version BIGINT NOT NULL DEFAULT 1,
                    prescribed_target DOUBLE PRECISION,
                    prescribed_rest DOUBLE PRECISION,
                    prescribed_enter DOUBLE PRECISION,
                    prescribed_exit DOUBLE PRECISION,
                    prescribed_hold_seconds DOUBLE PRECISION,
                    prescribed_reps BIGINT,
                    prescribed_sets BIGINT,
                    per_side TEXT COLLATE "C" NOT NULL DEFAULT '',
                    mean_peak DOUBLE PRECISION,
                    engine_state BYTEA,
                    checkpoint_t DOUBLE PRECISION,
                    resume_digest BYTEA,
                    start_request TEXT
                );
                CREATE INDEX sessions_by_start ON sessions (tenant, started_at DESC, id DESC);
                CREATE INDEX sessions_by_subject ON sessions (tenant, subject, started_at DESC, id DESC);
                CREATE INDEX sessions_by_exercise ON sessions (tenant, exercise, started_at DESC, id DESC);
                CREATE INDEX sessions_by_status ON sessions (tenant, status, started_at DESC, id DESC);
                CREATE INDEX sessions_by_subject_exercise
                    ON sessions (tenant, subject, exercise, started_at DESC, id DESC);
                CREATE INDEX sessions_live ON sessions (updated_at) WHERE status = 'live';
                CREATE TABLE reps (
                    session_id TEXT COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
                    "position" BIGINT NOT NULL,
                    number BIGINT NOT NULL,
                    peak DOUBLE PRECISION NOT NULL,
                    trough DOUBLE PRECISION NOT NULL,
                    start_t DOUBLE PRECISION NOT NULL,
                    end_t DOUBLE PRECISION NOT NULL,
                    faults TEXT COLLATE "C" NOT NULL DEFAULT '',
                    time_to_peak DOUBLE PRECISION,
                    side TEXT COLLATE "C",
                    PRIMARY KEY (session_id, "position")
                );
                CREATE TABLE series (
                    session_id TEXT COLLATE "C" PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
                    "interval" DOUBLE PRECISION NOT NULL,
                    capacity BIGINT NOT NULL
                );
                CREATE TABLE series_chunks (
                    session_id TEXT COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
                    first BIGINT NOT NULL,
                    samples BYTEA NOT NULL,
                    PRIMARY KEY (session_id, first)
                );
                CREATE TABLE exercises (
                    tenant TEXT COLLATE "C" NOT NULL,
                    id TEXT COLLATE "C" NOT NULL,
                    version BIGINT NOT NULL CHECK (version >= 1),
                    definition TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    deleted_at BIGINT,
                    PRIMARY KEY (tenant, id, version)
                );
                """),
        // v2: the SQLite schema's version 8, a rep's motion values (RepMotion); `motion_tremor` NULL for none.
        Migration(
            version: 2,
            sql: """
                ALTER TABLE reps ADD COLUMN motion_smoothness DOUBLE PRECISION;
                ALTER TABLE reps ADD COLUMN motion_tremor DOUBLE PRECISION;
                ALTER TABLE reps ADD COLUMN motion_rms DOUBLE PRECISION;
                ALTER TABLE reps ADD COLUMN motion_covered DOUBLE PRECISION;
                """),
        // v3: the SQLite schema's version 9, a live session's holder; and the nodes sharing the database
        // (PostgresNodeBus): each registers itself, heartbeats, and holds the session-level advisory lock `lock_key`
        // while its connection lives, so its death shows at once (the lock goes with the connection).
        Migration(
            version: 3,
            sql: """
                ALTER TABLE sessions ADD COLUMN holder TEXT COLLATE "C";
                ALTER TABLE sessions ADD COLUMN connected BOOLEAN;
                CREATE INDEX sessions_live_by_holder ON sessions (holder) WHERE status = 'live';
                CREATE TABLE nodes (
                    id TEXT COLLATE "C" PRIMARY KEY,
                    name TEXT NOT NULL,
                    lock_key BIGINT NOT NULL CHECK (lock_key > 0),
                    started_at BIGINT NOT NULL,
                    heartbeat_at BIGINT NOT NULL
                );
                """),
        // v4: the SQLite schema's version 10, the motion series (MotionSeries) kept as the value series is.
        Migration(
            version: 4,
            sql: """
                CREATE TABLE motion_series (
                    session_id TEXT COLLATE "C" PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
                    "interval" DOUBLE PRECISION NOT NULL,
                    capacity BIGINT NOT NULL
                );
                CREATE TABLE motion_chunks (
                    session_id TEXT COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
                    first BIGINT NOT NULL,
                    samples BYTEA NOT NULL,
                    PRIMARY KEY (session_id, first)
                );
                """),
        // v5: the live sessions' indexes give every plan the session's key. A statement that finds a live session
        // by id, tenant and holder (every checkpoint, claim and release) implies both of v1's and v3's partial
        // indexes, and the planner, on a table not yet analysed or analysed when few sessions were live, priced a
        // scan of either as cheap as the primary key: the plan then read every live session for each checkpoint
        // (1.6 ms each at 2,500 live sessions, instead of 0.05). Keyed by id, the one partial index left finds the
        // row as the primary key does; the scans of every live session (liveSessions, the orphans' sweep) read it
        // whole either way. No query looks a session up by its holder.
        Migration(
            version: 5,
            sql: """
                DROP INDEX sessions_live_by_holder;
                DROP INDEX sessions_live;
                CREATE INDEX sessions_live ON sessions (id) WHERE status = 'live';
                """),
        // v6: series chunks (16 bytes a sample, 9.6 kB a minute at 10 Hz) are compressed with LZ4 rather than
        // PostgreSQL's default pglz, which cost a batch of 25 one-minute creates half its time. Where the server
        // was built without LZ4, pglz stays; values already stored keep their compression and read the same.
        // Sessions' pages are filled to 70 %: a live session's row (about 1.2 kB with its engine state) is
        // rewritten at every checkpoint, and a new version that fits in its page is a HOT update, which writes
        // none of the table's seven indexes (44 % of checkpoints instead of 24 %, batches 12 % faster). Pages
        // written before keep their fill until rewritten.
        Migration(
            version: 6,
            sql: """
                ALTER TABLE sessions SET (fillfactor = 70);
                \(compressedWithLZ4(["series_chunks.samples", "motion_chunks.samples"]))
                """),
        // v7: an ended session's summary kept rendered (SummaryRendering) with the version of its rendering, so a
        // listing copies it rather than reading the session's reps and encoding the summary again. Rows stored
        // before have none and are listed as before. Long renderings (a session of many reps) are compressed
        // with LZ4 where the server has it, which reads back faster than pglz.
        Migration(
            version: 7,
            sql: """
                ALTER TABLE sessions ADD COLUMN rendered_version INTEGER, ADD COLUMN rendered BYTEA;
                \(compressedWithLZ4(["sessions.rendered"]))
                """),
        // v8: the readiness probe's row per node (SessionStore.probe), written on the connection the node writes
        // sessions with, so that a server that cannot take a write (read-only after a failover, out of disk) fails
        // the probe as it fails a session's create.
        Migration(
            version: 8,
            sql: """
                CREATE TABLE store_probe (
                    node TEXT COLLATE "C" PRIMARY KEY,
                    written_at BIGINT NOT NULL
                );
                """),
        // v9: the SQLite schema's version 13, a hold exercise's attempts with the time each was held
        // (docs/protocol.md §5.4) in a column of the session's row. A column with a constant default is added
        // without rewriting the table.
        Migration(
            version: 9,
            sql: """
                ALTER TABLE sessions ADD COLUMN holds TEXT COLLATE "C" NOT NULL DEFAULT '';
                """),
        // v10: the SQLite schema's version 14: programmes (docs/protocol.md §5.3), every version a row, and the
        // programme item and demonstration flag of each session, and patient codes (docs/protocol.md §6.1).
        Migration(
            version: 10,
            sql: """
                CREATE TABLE programmes (
                    tenant TEXT COLLATE "C" NOT NULL,
                    id TEXT COLLATE "C" NOT NULL,
                    version INTEGER NOT NULL CHECK (version >= 1),
                    subject TEXT COLLATE "C" NOT NULL,
                    starts_on TEXT COLLATE "C" NOT NULL,
                    ends_on TEXT COLLATE "C",
                    definition TEXT COLLATE "C" NOT NULL,
                    created_at BIGINT NOT NULL,
                    ended_at BIGINT,
                    PRIMARY KEY (tenant, id, version)
                );
                CREATE INDEX programmes_by_subject ON programmes (tenant, subject, id DESC);
                ALTER TABLE sessions ADD COLUMN programme_id TEXT COLLATE "C", ADD COLUMN programme_version INTEGER,
                    ADD COLUMN programme_item TEXT COLLATE "C", ADD COLUMN demo BOOLEAN NOT NULL DEFAULT false;
                CREATE TABLE access_codes (
                    tenant TEXT COLLATE "C" NOT NULL,
                    id TEXT COLLATE "C" NOT NULL,
                    subject TEXT COLLATE "C" NOT NULL,
                    digest BYTEA NOT NULL UNIQUE,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    revoked_at BIGINT,
                    PRIMARY KEY (tenant, id)
                );
                CREATE INDEX access_codes_by_subject ON access_codes (tenant, subject, id);
                """),
        // v11: the SQLite schema's version 15: the goal's sets the session completed as it ran them, NULL before.
        Migration(
            version: 11,
            sql: """
                ALTER TABLE sessions ADD COLUMN goal_sets_done BIGINT;
                """),
    ]

    /// SQL that compresses `columns` (`table.column`) with LZ4 where the server was built with it, and leaves
    /// PostgreSQL's default (pglz) elsewhere.
    private static func compressedWithLZ4(_ columns: [String]) -> String {
        let alters = columns.map { column in
            let parts = column.split(separator: ".")
            return "        ALTER TABLE \(parts[0]) ALTER COLUMN \(parts[1]) SET COMPRESSION lz4;"
        }
        return """
            DO $$
            BEGIN
                IF EXISTS (
                    SELECT FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)
                ) THEN
            \(alters.joined(separator: "\n"))
                END IF;
            END $$;
            """
    }

    /// The version this code writes.
    static var newestVersion: Int { migrations.last?.version ?? 0 }

    /// Applies the migrations the database lacks, up to `target`, in one transaction under the migration lock.
    /// - Parameters:
    ///   - connection: The connection.
    ///   - target: The version to reach.
    ///   - now: Unix milliseconds, recorded with each migration applied.
    /// - Returns: The version before migrating.
    /// - Throws: ``SessionStoreError/unsupportedSchemaVersion(found:newestKnown:)`` for a newer database;
    ///   database errors (nothing is applied).
    @discardableResult
    static func migrate(
        _ connection: PostgresConnection, upTo target: Int = newestVersion, now: Int64
    ) throws(SessionStoreError) -> Int {
        try connection.transaction { () throws(SessionStoreError) -> Int in
            // Waits for a node migrating the same database; released at COMMIT or ROLLBACK.
            try connection.query("SELECT pg_advisory_xact_lock(\(migrationLock))")
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version INTEGER PRIMARY KEY,
                    applied_at BIGINT NOT NULL
                )
                """)
            let initial = try version(of: connection)
            guard initial <= newestVersion else {
                throw .unsupportedSchemaVersion(found: initial, newestKnown: newestVersion)
            }
            for migration in migrations where migration.version > initial && migration.version <= target {
                try connection.execute(migration.sql)
                try connection.query(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)",
                    [.int(migration.version), .int(now)])
            }
            return initial
        }
    }

    /// The newest migration applied (0 for none).
    static func version(of connection: PostgresConnection) throws(SessionStoreError) -> Int {
        try connection.query("SELECT coalesce(max(version), 0) FROM schema_migrations").first?.int(0) ?? 0
    }
}
