import PostgresTestSupport
import Synchronization
import Testing

@testable import SessionStore

/// What only the PostgreSQL store has: a server it reaches over a connection that can be lost, nodes that start
/// together, the server's own errors. Against a real server (``PostgresTestServer``).
// Needs Debian's `postgresql` package (PostgreSQL 15 server binaries); `make deps` installs it.
@Suite(.enabled(if: PostgresTestServer.isInstalled, "PostgreSQL server binaries missing: apt install postgresql"))
struct PostgresStoreTests {
    @Test func twoNodesStartingTogetherMigrateOnce() async throws {
        let url = try await PostgresTestServer.shared.createDatabase()
        async let first = PostgresSessionStore(url: url)
        async let second = PostgresSessionStore(url: url)
        let stores = try await [first, second]
        let raw = try RawDatabase(url: url)
        defer { raw.close() }
        #expect(
            try raw.strings("SELECT version FROM schema_migrations ORDER BY version")
                == ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"])
        #expect(PostgresSchema.newestVersion == 11)
        let tables = try raw.strings(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")
        #expect(
            tables == [
                "access_codes", "exercises", "motion_chunks", "motion_series", "nodes", "programmes", "reps",
                "schema_migrations", "series", "series_chunks", "sessions", "store_probe",
            ])
        let lz4 = try raw.integer(
            "SELECT count(*) FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)")
        let compression = try raw.strings(
            """
            SELECT attcompression FROM pg_attribute
            WHERE (attname = 'samples' AND attrelid IN ('series_chunks'::regclass, 'motion_chunks'::regclass))
                OR (attname = 'rendered' AND attrelid = 'sessions'::regclass)
            """)
        #expect(
            compression == (lz4 == 1 ? ["l", "l", "l"] : ["", "", ""]),
            "chunks and rendered summaries compress with LZ4 where the server has it")
        #expect(
            try raw.strings("SELECT unnest(reloptions) FROM pg_class WHERE relname = 'sessions'") == ["fillfactor=70"])
        let session = StoredSession.make()
        try await stores[0].create(session)
        #expect(try await stores[1].session(id: session.id, tenant: session.tenant) == session)
        for store in stores { await store.close() }
    }

    @Test func refusesADatabaseFromNewerCode() async throws {
        let url = try await PostgresTestServer.shared.createDatabase()
        try await PostgresSessionStore(url: url).close()
        let raw = try RawDatabase(url: url)
        defer { raw.close() }
        try raw.execute("INSERT INTO schema_migrations (version, applied_at) VALUES (99, 0)")
        await #expect(throws: SessionStoreError.unsupportedSchemaVersion(found: 99, newestKnown: 11)) {
            _ = try await PostgresSessionStore(url: url)
        }
    }

    /// The statements that find a live session by id, tenant and holder (checkpoints, claims, releases) must read that
    /// one row whatever plan PostgreSQL picks, here generic plans with every live session held by one node: on a
    /// table never analysed (a node's first minute, before autovacuum's first ANALYZE), and on one analysed when no
    /// session was live (a quiet night before the morning's sessions). 400 sessions: at a few dozen, reading the whole
    /// table is as cheap as any index, and the plan that read every live session's entry in the index by status hid.
    @Test func findsALiveSessionByItsKeyWhateverTheStatistics() async throws {
        let url = try await PostgresTestServer.shared.createDatabase()
        let store = try await PostgresSessionStore(url: url)
        let raw = try RawDatabase(url: url)
        defer { raw.close() }
        try raw.execute("ALTER TABLE sessions SET (autovacuum_enabled = false)")
        let sessions = (1...400).map { StoredSession.make(random: UInt128($0), summary: .make(reps: 1)) }
        #expect(try await store.create(sessions).isEmpty)
        try raw.execute(
            """
            PREPARE touch (text, text, text) AS UPDATE sessions SET connected = true
            WHERE id = $1 AND \(PostgresSessionStore.liveCondition(tenant: "$2", holder: "$3"))
            """)
        try raw.execute("SET plan_cache_mode = force_generic_plan")
        let holder = try #require(raw.strings("SELECT DISTINCT holder FROM sessions").first)
        func expectOneRowRead(_ when: String) throws {
            let plan = try raw.strings(
                """
                EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
                EXECUTE touch('\(sessions[200].id)', 'clinic-1', '\(holder)')
                """)
            #expect(plan.contains { $0.contains("Index Cond: (id = $1)") }, "\(when): \(plan)")
            #expect(!plan.contains { $0.contains("Rows Removed by Filter") }, "\(when): \(plan)")
            #expect(plan.contains { $0.contains("rows=1 loops=1") }, "\(when): \(plan)")
        }
        try expectOneRowRead("never analysed")
        try raw.execute("UPDATE sessions SET status = 'finished', ended_at = updated_at")
        try raw.execute("ANALYZE sessions")
        try raw.execute("UPDATE sessions SET status = 'live', ended_at = NULL")
        try expectOneRowRead("analysed when none was live")
        // A batch of checkpoints reads each of its sessions' rows and no other, with these statistics too.
        let update = await store.batchUpdate(
            sessions[100..<105].map { SessionCheckpoint(id: $0.id, tenant: $0.tenant, summary: .make(frames: 9)) },
            now: 1)
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        let batchPlan = try connection.query(
            "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) " + update.sql, update.parameters
        ).rows.map { $0.string(0) }
        #expect(batchPlan.contains { $0.contains("Index Cond: (id = u.id)") }, "\(batchPlan)")
        #expect(!batchPlan.contains { $0.contains("Rows Removed") }, "\(batchPlan)")
        #expect(batchPlan.first == "Update on sessions s (actual rows=5 loops=1)", "\(batchPlan)")
        await store.close()
    }

    /// Arrays carry any text, number or bytes to the server as they are: quotes, backslashes, braces, commas, the
    /// word NULL, empty strings, U+0000, non-ASCII; NaN and infinities; empty and null bytes.
    @Test func arraysCarryEveryValueAsItIs() async throws {
        let connection = try PostgresConnection(url: try await PostgresTestServer.shared.createDatabase())
        defer { connection.close() }
        let texts: [String?] = [
            "plain", "", "NULL", "null", "a \"quoted\" word", "back\\slash\\", "{braces}", "a,b", " spaced ",
            "\u{0}nul", "é✓\u{1F600}", nil, "\\\"",
        ]
        let rows = try connection.query(
            "SELECT t, t IS NULL FROM unnest($1::text[]) WITH ORDINALITY AS a (t, n) ORDER BY n",
            [.array(texts.map(PostgresValue.string))])
        #expect(rows.rows.map { $0.isNull(0) ? nil : $0.string(0) } == texts)
        let numbers: [Double?] = [1.5, -0, .nan, .infinity, -.infinity, nil, 1e-300, 0.1]
        let doubles = try connection.query(
            "SELECT d FROM unnest($1::float8[]) WITH ORDINALITY AS a (d, n) ORDER BY n",
            [.array(numbers.map(PostgresValue.double))])
        let read = doubles.rows.map { $0.isNull(0) ? nil : $0.double(0) }
        #expect(read.count == numbers.count)
        for (got, sent) in zip(read, numbers) {
            #expect(got == sent || (got?.isNaN == true && sent?.isNaN == true), "\(String(describing: got))")
        }
        let integers: [Int64?] = [0, -1, .max, .min, nil]
        let ints = try connection.query(
            "SELECT i FROM unnest($1::int8[]) WITH ORDINALITY AS a (i, n) ORDER BY n",
            [.array(integers.map(PostgresValue.int))])
        #expect(ints.rows.map { $0.isNull(0) ? nil : $0.int64(0) } == integers)
        let blobs: [[UInt8]?] = [[], nil, [0, 0x22, 0x5C, 0x7B, 0xFF], Array(repeating: 0x5A, count: 100_000)]
        let bytes = try connection.query(
            "SELECT b FROM unnest($1::bytea[]) WITH ORDINALITY AS a (b, n) ORDER BY n", [.byteaArray(blobs)])
        #expect(bytes.rows.map { $0.isNull(0) ? nil : $0.blob(0) } == blobs)
        #expect(try connection.query("SELECT cardinality($1::bytea[])", [.byteaArray([])]).first?.int(0) == 0)
        #expect(try connection.query("SELECT cardinality($1::text[])", [.array([])]).first?.int(0) == 0)
    }

    /// A server restart closes every idle connection: the next write sees its connection's socket readable (the
    /// server's farewell) before sending anything, and connects again, so no write fails for it. (Before, the
    /// first write after a restart failed with `57P01`, and a final summary with it.)
    @Test func aConnectionTheServerClosedWhileIdleConnectsAgainBeforeTheNextWrite() async throws {
        try await withStore(.postgres) { store, database in
            let session = StoredSession.make()
            try await store.create(session)
            let raw = try database.raw()
            defer { raw.close() }
            let postgres = try #require(store as? PostgresSessionStore)
            #expect(try await Self.terminateOtherConnections(raw) == 1 + postgres.readers.size)
            try await store.checkpoint(id: session.id, tenant: session.tenant, summary: .make(frames: 5))
            #expect(try await store.session(id: session.id, tenant: session.tenant)?.summary == .make(frames: 5))
            #expect(try await Self.terminateOtherConnections(raw) >= 1, "the write connection, made again")
            try await store.checkpoint(id: session.id, tenant: session.tenant, summary: .make(frames: 6))
            #expect(try await store.session(id: session.id, tenant: session.tenant)?.summary == .make(frames: 6))
        }
    }

    /// A read changes nothing, so one that finds its connection lost runs again on a new one.
    @Test func aReadThatFindsItsConnectionLostRunsAgainOnANewOne() async throws {
        try await withStore(.postgres) { store, database in
            let session = StoredSession.make()
            try await store.create(session)
            let postgres = try #require(store as? PostgresSessionStore)
            let raw = try database.raw()
            defer { raw.close() }
            #expect(try await Self.terminateOtherConnections(raw) == 1 + postgres.readers.size)
            // Every read connection is lost; each read below finds one of them so.
            for _ in 0..<postgres.readers.size + 1 {
                #expect(try await store.session(id: session.id, tenant: session.tenant) == session)
            }
            #expect(try await store.list(SessionQuery(tenant: session.tenant)).sessions.map(\.id) == [session.id])
        }
    }

    /// A read does not wait for the store's writes, nor for another read: each blocked connection below waits on
    /// an advisory lock the test holds, and the reads that must pass it do so before the test lets it go.
    @Test func readsRunOnTheirOwnConnectionsSideBySide() async throws {
        try await withStore(.postgres) { store, database in
            let postgres = try #require(store as? PostgresSessionStore)
            try #require(postgres.readers.size >= 2, "the default pool has a connection per processor")
            #expect(await postgres.readers.runsOnItsOwnThreads(besides: { postgres.isOnStoreThread() }))
            let session = StoredSession.make()
            try await store.create(session)
            let raw = try database.raw()
            defer { raw.close() }
            try raw.execute("SELECT pg_advisory_lock(42)")
            // The store's own connection waits for the lock, and so does one read connection.
            async let write: Void = postgres.waitForAdvisoryLock(42)
            async let blockedRead = postgres.readers.read { db throws(SessionStoreError) in
                try db.query("SELECT pg_backend_pid(), pg_advisory_lock(42), pg_advisory_unlock(42)").first?.int(0)
            }
            #expect(try await Self.waitForBackends(waitingOnALock: 2, raw))
            // Both blocked, a read still passes: on the other read connection.
            let passed = Flag()
            let passing = Task {
                let read = try await store.session(id: session.id, tenant: session.tenant)
                let pid = try await postgres.readers.read { db throws(SessionStoreError) in
                    try db.query("SELECT pg_backend_pid()").first?.int(0)
                }
                passed.set()
                return (read, pid)
            }
            for _ in 0..<2_000 where !passed.isSet { try await Task.sleep(for: .milliseconds(10)) }
            #expect(passed.isSet, "a read waited for the blocked connections")
            try raw.execute("SELECT pg_advisory_unlock(42)")
            let (read, fast) = try await passing.value
            #expect(read == session)
            try await write
            let blocked = try await blockedRead
            #expect(blocked != nil && fast != nil && blocked != fast)
            #expect(try await postgres.backendProcess() != fast)
        }
    }

    /// Waits until `count` backends of the database wait on a lock (seconds at most, to fail rather than hang).
    private static func waitForBackends(waitingOnALock count: Int, _ raw: RawDatabase) async throws -> Bool {
        let waiting =
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        for _ in 0..<2_000 where try raw.integer(waiting) < count {
            try await Task.sleep(for: .milliseconds(10))
        }
        return try raw.integer(waiting) >= count
    }

    @Test func aPipelineAnswersEachStatementInOrder() async throws {
        let connection = try PostgresConnection(url: try await PostgresTestServer.shared.createDatabase())
        defer { connection.close() }
        let results = try connection.pipeline([
            PostgresStatement("SELECT $1::int * 2", [.int(21)]),
            PostgresStatement("SELECT generate_series(1, $1::int)", [.int(3)]),
            PostgresStatement("SELECT $1::int * 2", [.int(4)]),
        ])
        #expect(results.map { $0.rows.map { $0.int(0) } } == [[42], [1, 2, 3], [8]])
        let inTransaction = try connection.pipeline(
            [PostgresStatement("SELECT current_setting('transaction_isolation')")],
            transaction: "ISOLATION LEVEL REPEATABLE READ")
        #expect(inTransaction.map { $0.first?.string(0) } == ["repeatable read"])
        // A BEGIN inside a pipeline opens a transaction that outlives it (a page's snapshot spans two pipelines).
        try connection.pipeline([
            PostgresStatement("BEGIN ISOLATION LEVEL REPEATABLE READ"), PostgresStatement("SELECT 1"),
        ])
        #expect(
            try connection.query("SELECT current_setting('transaction_isolation')").first?.string(0)
                == "repeatable read")
        try connection.pipeline([PostgresStatement("COMMIT")])
        #expect(
            try connection.query("SELECT current_setting('transaction_isolation')").first?.string(0) == "read committed"
        )
    }

    @Test func readsEachBinaryNumberTypeAtItsWidthAndSign() async throws {
        let connection = try PostgresConnection(url: try await PostgresTestServer.shared.createDatabase())
        defer { connection.close() }
        let row = try #require(
            try connection.query(
                "SELECT -2::int2, -70000::int4, -5000000000::int8, 1.5::float4, -2.25::float8, true, 65535::int4,"
                    + " 4294967296::int8, '12'::text"
            ).first)
        #expect((0..<3).map { row.int64($0) } == [-2, -70_000, -5_000_000_000])
        #expect(row.double(3) == 1.5)
        #expect(row.double(4) == -2.25)
        #expect(row.int64(5) == 1)
        #expect(row.int64(6) == 65_535)
        #expect(row.int64(7) == 4_294_967_296)
        #expect(row.double(1) == -70_000)
        #expect(row.int64(8) == 12)
    }

    @Test func keepsAtMostItsBoundOfStatementsPrepared() async throws {
        let connection = try PostgresConnection(url: try await PostgresTestServer.shared.createDatabase())
        defer { connection.close() }
        let bound = PostgresConnection.maximumPrepared
        // Statements that differ without end (as a page's LIMIT could): each still answers.
        for n in 0..<(bound + 10) {
            #expect(try connection.query("SELECT \(n) + $1::int", [.int(1)]).first?.int(0) == n + 1)
        }
        let kept = connection.preparedCount
        #expect(kept <= bound)
        let onServer = "SELECT count(*) FROM pg_prepared_statements"
        #expect(try connection.query(onServer).first?.int(0) == kept + 1)
        // A pipeline that repeats a prepared statement prepares nothing and deallocates nothing.
        let last = "SELECT \(bound + 9) + $1::int"
        let results = try connection.pipeline(
            (0..<(2 * bound)).map { PostgresStatement(last, [.int($0)]) })
        #expect(results.map { $0.first?.int(0) } == (0..<(2 * bound)).map { bound + 9 + $0 })
        #expect(connection.preparedCount == kept + 1)
        #expect(try connection.query(onServer).first?.int(0) == kept + 1)
    }

    @Test func aFailedStatementRollsBackItsPipelinesTransactionAndSkipsTheRest() async throws {
        let connection = try PostgresConnection(url: try await PostgresTestServer.shared.createDatabase())
        defer { connection.close() }
        try connection.execute("CREATE TABLE t (n int PRIMARY KEY)")
        let insert = "INSERT INTO t VALUES ($1)"
        #expect(throws: SessionStoreError.server(sqlState: "22012", message: "division by zero")) {
            try connection.pipeline(
                [
                    PostgresStatement(insert, [.int(1)]), PostgresStatement("SELECT 1 / $1::int", [.int(0)]),
                    // Never run, so never prepared: a later use prepares it.
                    PostgresStatement("INSERT INTO t SELECT $1::int + 100", [.int(2)]),
                ], transaction: "")
        }
        #expect(try connection.query("SELECT count(*) FROM t").first?.int(0) == 0, "rolled back")
        try connection.pipeline([PostgresStatement("INSERT INTO t SELECT $1::int + 100", [.int(3)])])
        // Without an explicit transaction the pipeline is the server's implicit one: all or nothing too.
        #expect(throws: SessionStoreError.self) {
            try connection.pipeline([
                PostgresStatement(insert, [.int(4)]), PostgresStatement(insert, [.int(4)]),
                PostgresStatement(insert, [.int(5)]),
            ])
        }
        #expect(try connection.query("SELECT n FROM t ORDER BY n").rows.map { $0.int(0) } == [103])
    }

    /// Driven by a clock the test moves, so that no step depends on how fast the machine is.
    @Test func waitsBeforeConnectingAgainAfterAFailedAttempt() async throws {
        let now = Atomic<UInt64>(1_000_000_000)
        let (connection, database) = try await Self.connectionLosingItsDatabase(
            .init(initialBackoff: 200_000_000, maximumBackoff: 300_000_000, clock: { now.load(ordering: .relaxed) }))
        defer { connection.close() }
        // The server closed the idle connection: the call finds it so before sending and connects again at once.
        let refused = Self.outcome(connection)
        #expect(refused.contains("not currently accepting connections"), "\(refused)")
        #expect(!refused.contains("next attempt in"), "the first refusal is an attempt: \(refused)")
        // Not even tried during the backoff, though the server would take the connection by now.
        try await database.allowConnections()
        #expect(Self.outcome(connection).hasSuffix("(next attempt in 200 ms)"))
        now.add(199_000_000, ordering: .relaxed)
        #expect(Self.outcome(connection).hasSuffix("(next attempt in 1 ms)"))
        now.add(1_000_000, ordering: .relaxed)
        #expect(Self.outcome(connection) == "succeeded")
        #expect(try connection.query("SELECT 6 * $1", [.int(7)]).first?.int(0) == 42)
    }

    @Test func doublesTheBackoffUpToItsMaximum() async throws {
        let now = Atomic<UInt64>(0)
        let (connection, database) = try await Self.connectionLosingItsDatabase(
            .init(initialBackoff: 100_000_000, maximumBackoff: 250_000_000, clock: { now.load(ordering: .relaxed) }))
        defer { connection.close() }
        var waits: [String] = []
        for _ in 0..<4 {
            _ = Self.outcome(connection)  // an attempt, refused
            let wait = Self.outcome(connection)
            waits.append(String(wait[(wait.range(of: "(next attempt in")?.lowerBound ?? wait.endIndex)...]))
            now.add(1_000_000_000, ordering: .relaxed)
        }
        #expect(
            waits == [
                "(next attempt in 100 ms)", "(next attempt in 200 ms)", "(next attempt in 250 ms)",
                "(next attempt in 250 ms)",
            ])
        try await database.allowConnections()
    }

    /// A write waiting for the store cuts a grown backoff short, never closer than the first wait to the last
    /// attempt: a server back after a short restart takes it at once, and one still down is not hammered.
    @Test func aWaitingWriteBringsTheNextAttemptForward() async throws {
        let now = Atomic<UInt64>(0)
        let (connection, database) = try await Self.connectionLosingItsDatabase(
            .init(initialBackoff: 100_000_000, maximumBackoff: 5_000_000_000, clock: { now.load(ordering: .relaxed) }))
        defer { connection.close() }
        for _ in 0..<4 {  // attempts refused: the backoff grows to 1.6 s
            _ = Self.outcome(connection)
            now.add(2_000_000_000, ordering: .relaxed)
        }
        _ = Self.outcome(connection)
        #expect(Self.outcome(connection).hasSuffix("(next attempt in 1600 ms)"))
        connection.expediteReconnection()
        #expect(Self.outcome(connection).hasSuffix("(next attempt in 100 ms)"), "0.1 s after the last attempt")
        now.add(60_000_000, ordering: .relaxed)
        connection.expediteReconnection()
        #expect(Self.outcome(connection).hasSuffix("(next attempt in 40 ms)"), "asking again brings it no closer")
        try await database.allowConnections()
        now.add(40_000_000, ordering: .relaxed)
        #expect(Self.outcome(connection) == "succeeded")
        connection.expediteReconnection()  // connected: nothing to bring forward
        #expect(Self.outcome(connection) == "succeeded")
    }

    @Test func refusesAServerThatIsNotThere() async throws {
        await #expect {
            _ = try await PostgresSessionStore(url: "postgres://postgres@/none?host=/nonexistent-motion-socket")
        } throws: { Self.isUnavailable($0) }
    }

    @Test func reportsTheServersErrorsWithTheirSQLState() async throws {
        let url = try await PostgresTestServer.shared.createDatabase()
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        #expect(throws: SessionStoreError.server(sqlState: "22012", message: "division by zero")) {
            try connection.query("SELECT 1 / $1", [.int(0)])
        }
        #expect(throws: SessionStoreError.server(sqlState: "42P01", message: #"relation "nowhere" does not exist"#)) {
            try connection.query("SELECT * FROM nowhere")
        }
        #expect(try connection.query("SELECT 6 * $1", [.int(7)]).first?.int(0) == 42, "usable after an error")
    }

    /// A connection to a new database that then stops taking connections and ends the open one.
    private static func connectionLosingItsDatabase(
        _ configuration: PostgresConnection.Configuration
    ) async throws -> (PostgresConnection, ClosedDatabase) {
        let url = try await PostgresTestServer.shared.createDatabase()
        let connection = try PostgresConnection(url: url, configuration: configuration)
        let database = try ClosedDatabase(url: url)
        try await database.close()
        return (connection, database)
    }

    /// A database that takes no connections, opened again by ``allowConnections()``.
    private struct ClosedDatabase {
        let name: String
        let raw: RawDatabase

        init(url: String) throws {
            name = try #require(url.split(separator: "?").first?.split(separator: "/").last.map(String.init))
            raw = try RawDatabase(url: PostgresTestServer.url(database: "postgres", socketDirectory: host(url)))
        }

        func close() async throws {
            try raw.execute("ALTER DATABASE \(name) ALLOW_CONNECTIONS false")
            let connections = "FROM pg_stat_activity WHERE datname = ?1"
            #expect(try raw.integer("SELECT count(pg_terminate_backend(pid)) " + connections, name) == 1)
            for _ in 0..<500 where try raw.integer("SELECT count(*) " + connections, name) > 0 {
                try await Task.sleep(for: .milliseconds(10))
            }
        }

        func allowConnections() async throws {
            try raw.execute("ALTER DATABASE \(name) ALLOW_CONNECTIONS true")
            raw.close()
        }
    }

    /// What one statement on `connection` comes to: "succeeded", or the message it is unavailable with.
    private static func outcome(_ connection: PostgresConnection) -> String {
        do {
            try connection.execute("SELECT 1")
            return "succeeded"
        } catch {
            return unavailableMessage(error) ?? "not unavailable: \(error)"
        }
    }

    /// Ends the other connections to `raw`'s database and waits until they are gone.
    /// - Returns: How many there were.
    private static func terminateOtherConnections(_ raw: RawDatabase) async throws -> Int {
        let others = "FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        let count = try raw.integer("SELECT count(pg_terminate_backend(pid)) " + others)
        for _ in 0..<200 where try raw.integer("SELECT count(*) " + others) > 0 {
            try await Task.sleep(for: .milliseconds(10))
        }
        return count
    }

    private static func isUnavailable(_ error: any Error) -> Bool { unavailableMessage(error) != nil }

    private static func unavailableMessage(_ error: any Error) -> String? {
        guard case .unavailable(let message) = error as? SessionStoreError else { return nil }
        return message
    }

    private static func host(_ url: String) -> String {
        String(url.split(separator: "host=").last ?? "")
    }
}

extension PostgresSessionStore {
    /// The server process of the store's own connection.
    fileprivate func backendProcess() throws -> Int? {
        try database().query("SELECT pg_backend_pid()").first?.int(0)
    }

    /// Takes and lets go an advisory lock on the store's own connection: blocks the store while another holds it.
    fileprivate func waitForAdvisoryLock(_ key: Int) throws {
        try database().query("SELECT pg_advisory_lock($1), pg_advisory_unlock($1)", [.int(key)])
    }
}

/// A flag one task sets and another reads.
private final class Flag: Sendable {
    private let value = Mutex(false)

    func set() { value.withLock { $0 = true } }

    var isSet: Bool { value.withLock { $0 } }
}

/// What the PostgreSQL store decides without a server.
@Suite struct PostgresStoreOfflineTests {
    @Test(arguments: ["a\u{0}b", "\u{FFFE}", "\u{FFFE}0", "\u{0}\u{FFFE}\u{0}", "plain", ""])
    func keepsTextPostgreSQLCannotHoldVerbatim(_ text: String) async throws {
        #expect(PostgresText.decode(PostgresText.encode(text)) == text)
        #expect(!PostgresText.encode(text).unicodeScalars.contains("\u{0}"))
    }

    @Test func tellsAURLFromAPath() {
        #expect(PostgresSessionStore.isURL("postgres://u@h:5432/db"))
        #expect(PostgresSessionStore.isURL("postgresql:///db?host=/run/postgresql"))
        #expect(!PostgresSessionStore.isURL("./data/motion.sqlite"))
        #expect(!PostgresSessionStore.isURL("postgres.sqlite"))
    }
}
