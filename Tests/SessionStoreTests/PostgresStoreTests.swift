import PostgresTestSupport
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
        #expect(try raw.strings("SELECT version FROM schema_migrations ORDER BY version") == ["1"])
        #expect(PostgresSchema.newestVersion == 1)
        let tables = try raw.strings(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")
        #expect(tables == ["exercises", "reps", "schema_migrations", "series", "series_chunks", "sessions"])
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
        await #expect(throws: SessionStoreError.unsupportedSchemaVersion(found: 99, newestKnown: 1)) {
            _ = try await PostgresSessionStore(url: url)
        }
    }

    @Test func aLostConnectionFailsOneCallAndTheNextReconnects() async throws {
        try await withStore(.postgres) { store, database in
            let session = StoredSession.make()
            try await store.create(session)
            let raw = try database.raw()
            defer { raw.close() }
            #expect(try await Self.terminateOtherConnections(raw) == 1)
            await #expect {
                try await store.checkpoint(id: session.id, tenant: session.tenant, summary: .make(frames: 5))
            } throws: { Self.isUnavailable($0) }
            try await store.checkpoint(id: session.id, tenant: session.tenant, summary: .make(frames: 6))
            #expect(try await store.session(id: session.id, tenant: session.tenant)?.summary == .make(frames: 6))
        }
    }

    @Test func waitsBeforeConnectingAgainAfterAFailedAttempt() async throws {
        let url = try await PostgresTestServer.shared.createDatabase()
        let name = try #require(url.split(separator: "?").first?.split(separator: "/").last.map(String.init))
        let store = try await PostgresSessionStore(
            url: url, configuration: .init(reconnectDelayMilliseconds: 200, maximumReconnectDelayMilliseconds: 200))
        let raw = try RawDatabase(url: PostgresTestServer.url(database: "postgres", socketDirectory: Self.host(url)))
        defer { raw.close() }
        try raw.execute("ALTER DATABASE \(name) ALLOW_CONNECTIONS false")
        let connections = "FROM pg_stat_activity WHERE datname = ?1"
        #expect(try raw.integer("SELECT count(pg_terminate_backend(pid)) " + connections, name) == 1)
        for _ in 0..<200 where try raw.integer("SELECT count(*) " + connections, name) > 0 {
            try await Task.sleep(for: .milliseconds(10))
        }
        // Lost, then refused (the database takes no connections), then not even tried during the backoff.
        var messages: [String] = []
        for _ in 0..<3 {
            do {
                try await store.probe()
            } catch {
                messages.append(Self.unavailableMessage(error) ?? "not unavailable: \(error)")
            }
        }
        #expect(messages.count == 3)
        #expect(!messages.contains { $0.hasPrefix("not unavailable") }, "\(messages)")
        #expect(messages.last?.contains("next attempt in") == true, "\(messages)")
        try raw.execute("ALTER DATABASE \(name) ALLOW_CONNECTIONS true")
        try await Task.sleep(for: .milliseconds(300))
        try await store.probe()
        #expect(try await store.liveSessions().isEmpty)
        await store.close()
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
