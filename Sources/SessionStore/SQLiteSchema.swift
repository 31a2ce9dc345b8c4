/// The SQLite schema as an ordered list of migrations; `PRAGMA user_version` records how many have been applied.
///
/// A migration is never edited once released: a change is a new migration at the end. Each runs in its own
/// transaction together with the version bump, so a crash leaves the database at one version or the next. Versions
/// increase but need not be consecutive: a database is migrated through every listed version above its own.
enum SQLiteSchema {
    /// One step: the SQL that takes the schema from `version - 1` to `version`.
    struct Migration {
        let version: Int
        let sql: String
    }

    /// Every migration, in order; the newest version is the last one's.
    static let migrations: [Migration] = [
        // v1: sessions and their reps, listed by start time.
        Migration(
            version: 1,
            sql: """
                CREATE TABLE sessions (
                    id TEXT PRIMARY KEY NOT NULL,
                    tenant TEXT NOT NULL,
                    subject TEXT,
                    exercise TEXT NOT NULL,
                    side TEXT,
                    status TEXT NOT NULL CHECK (status IN ('live', 'finished', 'abandoned')),
                    started_at INTEGER NOT NULL,
                    ended_at INTEGER,
                    first_t REAL,
                    last_t REAL,
                    frames INTEGER NOT NULL,
                    visible_frames INTEGER NOT NULL,
                    rep_count INTEGER NOT NULL,
                    rejected_count INTEGER NOT NULL,
                    best REAL,
                    baseline REAL,
                    fault_counts TEXT NOT NULL DEFAULT ''
                );
                CREATE INDEX sessions_by_start ON sessions (tenant, started_at DESC, id DESC);
                CREATE TABLE reps (
                    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    number INTEGER NOT NULL,
                    peak REAL NOT NULL,
                    trough REAL NOT NULL,
                    start_t REAL NOT NULL,
                    end_t REAL NOT NULL,
                    faults TEXT NOT NULL DEFAULT '',
                    PRIMARY KEY (session_id, position)
                ) WITHOUT ROWID;
                """),
        // v2: downsampled series, the time of the last write (for abandoning stale live sessions), filter indexes.
        Migration(
            version: 2,
            sql: """
                ALTER TABLE sessions ADD COLUMN updated_at INTEGER NOT NULL DEFAULT 0;
                UPDATE sessions SET updated_at = coalesce(ended_at, started_at);
                CREATE TABLE series (
                    session_id TEXT PRIMARY KEY NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
                    interval REAL NOT NULL,
                    capacity INTEGER NOT NULL,
                    samples BLOB NOT NULL
                );
                CREATE INDEX sessions_by_subject ON sessions (tenant, subject, started_at DESC, id DESC);
                CREATE INDEX sessions_by_exercise ON sessions (tenant, exercise, started_at DESC, id DESC);
                CREATE INDEX sessions_by_status ON sessions (tenant, status, started_at DESC, id DESC);
                CREATE INDEX sessions_live ON sessions (updated_at) WHERE status = 'live';
                """),
        // v3: a series' samples in chunks, so a live session's checkpoint appends the samples recorded since the last
        // one instead of rewriting them all (an hour at 10 Hz is 576 KB); `first` is the chunk's first sample's
        // position in the series. `series` keeps the interval and capacity.
        Migration(
            version: 3,
            sql: """
                CREATE TABLE series_chunks (
                    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
                    first INTEGER NOT NULL,
                    samples BLOB NOT NULL,
                    PRIMARY KEY (session_id, first)
                );
                INSERT INTO series_chunks (session_id, first, samples)
                    SELECT session_id, 0, samples FROM series WHERE length(samples) > 0;
                ALTER TABLE series DROP COLUMN samples;
                """),
        // v4: the measurement model's second version (docs/protocol.md §5.2). A session records the exercise version it
        // used, the effective prescription (NULL where nothing was in effect: rows written before v4), its per-side
        // tallies (`left=3:1:55.5,right=2:0:`, empty for exercises that do not alternate) and the mean peak of its
        // clean reps, kept beside the counts so that progress over many sessions reads only `sessions` (rows
        // written before v4 get it from their reps here). A rep records its time to peak and, for alternating
        // exercises, its side. Progress by subject and exercise reads an index of its own.
        Migration(
            version: 4,
            sql: """
                ALTER TABLE sessions ADD COLUMN exercise_version INTEGER NOT NULL DEFAULT 1;
                ALTER TABLE sessions ADD COLUMN prescribed_target REAL;
                ALTER TABLE sessions ADD COLUMN prescribed_rest REAL;
                ALTER TABLE sessions ADD COLUMN prescribed_enter REAL;
                ALTER TABLE sessions ADD COLUMN prescribed_exit REAL;
                ALTER TABLE sessions ADD COLUMN prescribed_hold_seconds REAL;
                ALTER TABLE sessions ADD COLUMN prescribed_reps INTEGER;
                ALTER TABLE sessions ADD COLUMN prescribed_sets INTEGER;
                ALTER TABLE sessions ADD COLUMN per_side TEXT NOT NULL DEFAULT '';
                ALTER TABLE sessions ADD COLUMN mean_peak REAL;
                UPDATE sessions SET mean_peak =
                    (SELECT avg(peak) FROM reps WHERE reps.session_id = sessions.id AND reps.faults = '');
                ALTER TABLE reps ADD COLUMN time_to_peak REAL;
                ALTER TABLE reps ADD COLUMN side TEXT;
                CREATE INDEX sessions_by_subject_exercise
                    ON sessions (tenant, subject, exercise, started_at DESC, id DESC);
                """),
        // v5: tenants' custom exercises, every version kept (stored sessions name the version they used). The
        // definition is the application's text, opaque here. A delete stamps `deleted_at` on the id's rows; the
        // current exercise of an id is its latest version when that is not deleted. The primary key serves every
        // query: one tenant's rows, one id's versions.
        Migration(
            version: 5,
            sql: """
                CREATE TABLE exercises (
                    tenant TEXT NOT NULL,
                    id TEXT NOT NULL,
                    version INTEGER NOT NULL CHECK (version >= 1),
                    definition TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    deleted_at INTEGER,
                    PRIMARY KEY (tenant, id, version)
                );
                """),
        // v6: a live session's engine state as of its last checkpoint (MotionEngine.savedState, the series left
        // out: it is in series_chunks) and the timestamp of the last pose it covers, so the session can be restored
        // exactly (docs/protocol.md §3.1). Cleared when the session ends.
        Migration(
            version: 6,
            sql: """
                ALTER TABLE sessions ADD COLUMN engine_state BLOB;
                ALTER TABLE sessions ADD COLUMN checkpoint_t REAL;
                """),
        // v7: what resuming a live WebSocket session needs (docs/protocol.md §3.1): the SHA-256 of its resume token (the
        // token itself is never stored) and its `start` request as the application encodes it. NULL for sessions
        // driven over HTTP and rows written before v7, which cannot be resumed.
        Migration(
            version: 7,
            sql: """
                ALTER TABLE sessions ADD COLUMN resume_digest BLOB;
                ALTER TABLE sessions ADD COLUMN start_request TEXT;
                """),
        // v8: how a rep moved by the phone's motion sensors (docs/protocol.md §3.3, RepMotion): SPARC smoothness (NULL
        // for a still phone), tremor share, RMS and the seconds covered. `motion_tremor` is NULL for a rep without
        // motion samples, and then so are the others.
        Migration(
            version: 8,
            sql: """
                ALTER TABLE reps ADD COLUMN motion_smoothness REAL;
                ALTER TABLE reps ADD COLUMN motion_tremor REAL;
                ALTER TABLE reps ADD COLUMN motion_rms REAL;
                ALTER TABLE reps ADD COLUMN motion_covered REAL;
                """),
        // v9: the node that holds a live session (docs/protocol.md §8): the process that created or claimed it. NULL for
        // none (released, or live before this version), which any node may claim. And whether a client is attached
        // to it (1/0), as its holder last wrote it, for REST on the other nodes; NULL for unknown.
        Migration(
            version: 9,
            sql: """
                ALTER TABLE sessions ADD COLUMN holder TEXT;
                ALTER TABLE sessions ADD COLUMN connected INTEGER;
                """),
        // v10: the phone's acceleration over the session (docs/protocol.md §5.2, MotionSeries: 20 samples/s by default),
        // kept as the value series is (v2, v3): interval and capacity in `motion_series`, the samples in chunks of
        // little-endian binary64 quadruples (t, x, y, z) keyed by their first sample's position, so a checkpoint
        // appends what came since the last one.
        Migration(
            version: 10,
            sql: """
                CREATE TABLE motion_series (
                    session_id TEXT PRIMARY KEY NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
                    interval REAL NOT NULL,
                    capacity INTEGER NOT NULL
                );
                CREATE TABLE motion_chunks (
                    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
                    first INTEGER NOT NULL,
                    samples BLOB NOT NULL,
                    PRIMARY KEY (session_id, first)
                );
                """),
        // v11: an ended session's summary kept rendered (SummaryRendering) with the version of its rendering, so a
        // listing copies it rather than reading the session's reps and encoding the summary again. Rows stored
        // before have none and are listed as before.
        Migration(
            version: 11,
            sql: """
                ALTER TABLE sessions ADD COLUMN rendered_version INTEGER;
                ALTER TABLE sessions ADD COLUMN rendered BLOB;
                """),
        // v12: the readiness probe's row per node (SessionStore.probe): written, not only locked, so that a full
        // disk fails the probe as it fails a session's create.
        Migration(
            version: 12,
            sql: """
                CREATE TABLE store_probe (
                    node TEXT PRIMARY KEY NOT NULL,
                    written_at INTEGER NOT NULL,
                    padding BLOB NOT NULL
                );
                """),
        // v13: a hold exercise's attempts with the time each was held (docs/protocol.md §5.4, SessionSummary.holds)
        // as `start:held:completed` entries joined by commas (SessionRecordCoding), rewritten with the row: a
        // session has a few, unlike its reps. Rows stored before have none.
        Migration(
            version: 13,
            sql: """
                ALTER TABLE sessions ADD COLUMN holds TEXT NOT NULL DEFAULT '';
                """),
        // v14: programmes (docs/protocol.md §5.3), every version kept like custom exercises' (v5): the definition is
        // the application's text, opaque here, beside the columns listings and adherence filter on. Ending one
        // stamps `ended_at` on every row of the id. A session records the programme item it was started for (id,
        // version, item; NULL for none) and whether it was a demonstration (`demo`, 1/0), which adherence and
        // progress leave out unless asked. Patient codes (docs/protocol.md §6.1): the SHA-256 of each code (never the
        // code), the subject it is limited to, when it expires and when it was revoked.
        Migration(
            version: 14,
            sql: """
                CREATE TABLE programmes (
                    tenant TEXT NOT NULL,
                    id TEXT NOT NULL,
                    version INTEGER NOT NULL CHECK (version >= 1),
                    subject TEXT NOT NULL,
                    starts_on TEXT NOT NULL,
                    ends_on TEXT,
                    definition TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    ended_at INTEGER,
                    PRIMARY KEY (tenant, id, version)
                );
                CREATE INDEX programmes_by_subject ON programmes (tenant, subject, id DESC);
                ALTER TABLE sessions ADD COLUMN programme_id TEXT;
                ALTER TABLE sessions ADD COLUMN programme_version INTEGER;
                ALTER TABLE sessions ADD COLUMN programme_item TEXT;
                ALTER TABLE sessions ADD COLUMN demo INTEGER NOT NULL DEFAULT 0;
                CREATE TABLE access_codes (
                    tenant TEXT NOT NULL,
                    id TEXT NOT NULL,
                    subject TEXT NOT NULL,
                    digest BLOB NOT NULL UNIQUE,
                    created_at INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL,
                    revoked_at INTEGER,
                    PRIMARY KEY (tenant, id)
                );
                CREATE INDEX access_codes_by_subject ON access_codes (tenant, subject, id);
                """),
        // v15: the sets of the prescription's goal the session completed as it ran them (SessionSummary.goal, a set
        // done without a rest), written with the row, so that adherence reads it without the reps. NULL for rows
        // stored before, and for sessions whose prescription sets no goal: those count their clean reps as whole sets.
        Migration(
            version: 15,
            sql: """
                ALTER TABLE sessions ADD COLUMN goal_sets_done INTEGER;
                """),
    ]

    /// The version this code writes.
    static var newestVersion: Int { migrations.last?.version ?? 0 }

    /// Applies the migrations the database lacks, up to `target`.
    /// - Parameters:
    ///   - connection: The connection.
    ///   - target: The version to reach (tests build older databases with a lower one).
    /// - Returns: The version before migrating.
    /// - Throws: ``SessionStoreError/unsupportedSchemaVersion(found:newestKnown:)`` for a newer database;
    ///   database errors (the failing migration is rolled back).
    @discardableResult
    static func migrate(
        _ connection: SQLiteConnection, upTo target: Int = newestVersion
    ) throws(SessionStoreError) -> Int {
        let initial = try version(of: connection)
        guard initial <= newestVersion else {
            throw .unsupportedSchemaVersion(found: initial, newestKnown: newestVersion)
        }
        for migration in migrations where migration.version > initial && migration.version <= target {
            try connection.transaction { () throws(SessionStoreError) in
                // Re-read inside the write lock: another process may have migrated meanwhile.
                guard try version(of: connection) < migration.version else { return }
                try connection.execute(migration.sql)
                try connection.execute("PRAGMA user_version = \(migration.version)")
            }
        }
        return initial
    }

    /// The database's `user_version`.
    static func version(of connection: SQLiteConnection) throws(SessionStoreError) -> Int {
        try connection.withStatement("PRAGMA user_version") { statement throws(SessionStoreError) in
            try statement.step() ? statement.int(0) : 0
        }
    }
}
