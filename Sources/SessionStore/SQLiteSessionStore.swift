import Basics
import CSQLite
import Glibc

/// The embedded ``SessionStore``: one SQLite file in WAL mode, owned by an actor that runs on its own thread.
///
/// Every call hops to the store's thread (a dedicated ``SerialExecutor``), so SQLite's blocking I/O never runs on an
/// event loop or in the cooperative pool, and the one connection is never used by two threads at once. Statements
/// are prepared once and cached; multi-row writes are transactions; the schema is migrated when the store opens.
///
///     let store = try await SQLiteSessionStore(path: "data/motion.sqlite")
///     _ = try await store.abandonLiveSessions()  // left live by a previous process
///     // … serve …
///     await store.close()
///
/// Durability: `synchronous=NORMAL` in WAL mode keeps every committed write through a process crash (`kill -9`);
/// a power cut may lose the last few. Live sessions are as fresh as their last ``checkpoint(id:tenant:summary:)``.
public actor SQLiteSessionStore: SessionStore {
    /// How the store opens its database. Every field has a safe default.
    public struct Configuration: Sendable {
        /// How long a write waits for another connection's lock before failing with `SQLITE_BUSY`, milliseconds.
        public var busyTimeoutMilliseconds: Int
        /// The WAL size, in pages, at which SQLite checkpoints it into the database (SQLite's default: 1000).
        public var walAutocheckpointPages: Int
        /// How much of the database file SQLite reads through a memory map rather than with `pread` into its
        /// 2 MiB page cache, bytes (`PRAGMA mmap_size`; 0 turns it off; SQLite caps it at its compile-time maximum,
        /// 2 GiB in common builds). Mapped pages are the kernel's page cache itself: no system call, no copy and no
        /// private memory per page read, which is what a listing whose rows are spread over a large file mostly
        /// costs otherwise. They count in the process's RSS as shared file pages. Writes still go through the WAL.
        public var mmapSizeBytes: Int
        /// The store's wall clock, Unix milliseconds: stamps each write, which
        /// ``abandonLiveSessions(updatedBefore:)`` compares with its cutoff.
        public var clock: @Sendable () -> Int64
        /// The schema version to migrate to; tests build older databases with a lower one.
        var schemaVersion = SQLiteSchema.newestVersion
        /// The node this store writes for (``SessionStore/node``): by default a new id for each store opened, so
        /// the live sessions a previous process left are orphans that a resume claims.
        public var node = StoreNode.generateID()
        /// How ended sessions' summaries are kept rendered for listings (``SummaryRendering``); nil keeps none, and
        /// every listed session is read whole.
        public var rendering: SummaryRendering?

        /// Creates a configuration.
        /// - Parameters:
        ///   - busyTimeoutMilliseconds: Lock wait, milliseconds (default 5000).
        ///   - walAutocheckpointPages: WAL checkpoint threshold, pages (default 1000).
        ///   - mmapSizeBytes: Memory-mapped part of the database, bytes (default 1 GiB; 0 turns it off).
        ///   - clock: Unix milliseconds now (default: the system clock).
        public init(
            busyTimeoutMilliseconds: Int = 5_000, walAutocheckpointPages: Int = 1_000,
            mmapSizeBytes: Int = 1 << 30,
            clock: @escaping @Sendable () -> Int64 = SQLiteSessionStore.systemMilliseconds
        ) {
            self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
            self.walAutocheckpointPages = walAutocheckpointPages
            self.mmapSizeBytes = mmapSizeBytes
            self.clock = clock
        }
    }

    /// The system's wall clock, Unix milliseconds.
    @Sendable public static func systemMilliseconds() -> Int64 { WallClock.milliseconds() }

    private let executor: StoreThreadExecutor
    let clock: @Sendable () -> Int64
    /// The node this store writes for. An embedded database has one process: every other node is dead.
    public nonisolated let node: String
    /// How ended sessions' summaries are kept rendered, if at all.
    nonisolated let rendering: SummaryRendering?
    /// Whether the schema has holders (version 9): only the databases tests build at older versions lack them.
    let tracksHolders: Bool
    /// Whether the schema keeps each session's counted sets (version 15, `goal_sets_done`), as above.
    let countsSets: Bool
    private var connection: SQLiteConnection?
    /// How much of each live session's reps and series this store has written (see ``WrittenDetails``), so that a
    /// checkpoint writes only what came since. Changed only once the transaction that wrote them has committed.
    var written: [SessionID: WrittenDetails] = [:]
    /// Whether opening and migrating ran on the store's thread (for tests of the threading model).
    private(set) var openedOnStoreThread = false

    /// The store's thread: every method of this actor runs there.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Opens the database at `path`, creating it and its parent directories if needed, and migrates its schema.
    /// - Parameters:
    ///   - path: The database file.
    ///   - configuration: Timeouts and clock.
    /// - Throws: ``SessionStoreError/database(code:message:)`` if it cannot be opened;
    ///   ``SessionStoreError/unsupportedSchemaVersion(found:newestKnown:)`` if it was written by newer code.
    public init(path: String, configuration: Configuration = Configuration()) async throws(SessionStoreError) {
        executor = StoreThreadExecutor()
        clock = configuration.clock
        node = configuration.node
        rendering = configuration.rendering
        tracksHolders = configuration.schemaVersion >= 9
        countsSets = configuration.schemaVersion >= 15
        connection = nil
        // Fully initialized: from here on the init runs isolated, on the store's thread.
        Self.createParentDirectories(of: path)
        let connection = try SQLiteConnection(path: path)
        try connection.execute(
            """
            PRAGMA busy_timeout = \(max(0, configuration.busyTimeoutMilliseconds));
            PRAGMA journal_mode = WAL;
            PRAGMA synchronous = NORMAL;
            PRAGMA foreign_keys = ON;
            PRAGMA wal_autocheckpoint = \(max(0, configuration.walAutocheckpointPages));
            PRAGMA mmap_size = \(max(0, configuration.mmapSizeBytes));
            """)
        try SQLiteSchema.migrate(connection, upTo: configuration.schemaVersion)
        self.connection = connection
        openedOnStoreThread = executor.isCurrentThread
    }

    /// Closes the database; later calls throw ``SessionStoreError/closed``. Calling it again does nothing.
    public func close() {
        // Lets SQLite refresh the planner's statistics if the data changed enough (cheap; a no-op otherwise).
        try? connection?.execute("PRAGMA optimize")
        connection?.close()
        connection = nil
    }

    /// The open connection.
    /// - Throws: ``SessionStoreError/closed`` after ``close()``.
    func database() throws(SessionStoreError) -> SQLiteConnection {
        assert(executor.isCurrentThread, "SQLite used off the store's thread")
        guard let connection else { throw .closed }
        return connection
    }

    /// Whether the caller runs on the store's thread (for tests of the threading model).
    nonisolated func isOnStoreThread() -> Bool { executor.isCurrentThread }

    /// Whether an isolated call runs on the store's thread (for tests of the threading model).
    func isolatedCallRunsOnStoreThread() -> Bool { isOnStoreThread() }

    /// Creates the directories above `path` that are missing (like `mkdir -p` of its parent).
    private static func createParentDirectories(of path: String) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        let components = path.split(separator: "/").dropLast()
        for component in components {
            prefix += component
            mkdir(prefix, 0o755)
            prefix += "/"
        }
    }
}
