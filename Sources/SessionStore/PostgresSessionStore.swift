import Basics

/// The shared ``SessionStore``: a PostgreSQL database that several nodes may use at once (docs/protocol.md §8), owned by
/// an actor that runs on its own thread.
///
/// Writes, and the reads the live path depends on, hop to the store's thread (a dedicated ``SerialExecutor``), so
/// libpq's blocking I/O never runs on an event loop or in the cooperative pool, and its connection is never used by
/// two threads at once. The REST reads (a session, a page, a count, progress, series) go to a pool of read
/// connections with a thread each (``PostgresReadPool``), so they run side by side and never wait for a checkpoint;
/// a read of several statements is one round trip (a pipeline) in one snapshot. Statements are prepared once per
/// connection; multi-row writes are transactions; the schema is migrated when the store opens (``PostgresSchema``).
/// Semantics are the SQLite store's, call for call.
///
///     let store = try await PostgresSessionStore(url: "postgres://motion@db.internal:5432/motion")
///     _ = try await store.abandonLiveSessions(updatedBefore: now - window)
///     // … serve …
///     await store.close()
///
/// A connection the server closed while idle (a restart) is made again before the next call; one lost during a
/// call fails it with ``SessionStoreError/unavailable(message:)`` (nothing of it was written); the next call
/// connects again, with a backoff between failed attempts.
public actor PostgresSessionStore: SessionStore {
    /// How the store connects. Every field has a safe default.
    public struct Configuration: Sendable {
        /// How long one connection attempt may take, seconds.
        public var connectTimeoutSeconds: Int
        /// The wait after a failed connection attempt before the next one, milliseconds; it doubles with each
        /// failure up to ``maximumReconnectDelayMilliseconds``. Calls meanwhile fail at once.
        public var reconnectDelayMilliseconds: Int
        /// The longest wait between connection attempts, milliseconds.
        public var maximumReconnectDelayMilliseconds: Int
        /// The store's wall clock, Unix milliseconds: stamps each write, which
        /// ``abandonLiveSessions(updatedBefore:)`` compares with its cutoff.
        public var clock: @Sendable () -> Int64
        /// The node this store writes for (``SessionStore/node``; the id its ``PostgresNodeBus`` registers): by
        /// default a new id for each store opened.
        public var node = StoreNode.generateID()
        /// How many connections serve REST reads beside the store's own: by default one per processor, at most four.
        public var readConnections = PostgresReadPool.defaultSize
        /// How ended sessions' summaries are kept rendered for listings (``SummaryRendering``); nil keeps none, and
        /// every listed session is read whole.
        public var rendering: SummaryRendering?

        /// Creates a configuration.
        /// - Parameters:
        ///   - connectTimeoutSeconds: One connection attempt's limit, seconds (default 10; at least 2).
        ///   - reconnectDelayMilliseconds: The first wait after a failed attempt, milliseconds (default 100).
        ///   - maximumReconnectDelayMilliseconds: The longest wait, milliseconds (default 5000).
        ///   - clock: Unix milliseconds now (default: the system clock).
        public init(
            connectTimeoutSeconds: Int = 10, reconnectDelayMilliseconds: Int = 100,
            maximumReconnectDelayMilliseconds: Int = 5_000,
            clock: @escaping @Sendable () -> Int64 = PostgresSessionStore.systemMilliseconds
        ) {
            self.connectTimeoutSeconds = connectTimeoutSeconds
            self.reconnectDelayMilliseconds = reconnectDelayMilliseconds
            self.maximumReconnectDelayMilliseconds = maximumReconnectDelayMilliseconds
            self.clock = clock
        }
    }

    /// The system's wall clock, Unix milliseconds.
    @Sendable public static func systemMilliseconds() -> Int64 { WallClock.milliseconds() }

    /// Whether `location` names a PostgreSQL database (`postgres://…` or `postgresql://…`) rather than a file.
    /// - Parameter location: A `--database` value.
    /// - Returns: Whether it is a PostgreSQL URL.
    public static func isURL(_ location: String) -> Bool {
        location.hasPrefix("postgres://") || location.hasPrefix("postgresql://")
    }

    private let executor: StoreThreadExecutor
    let clock: @Sendable () -> Int64
    /// The node this store writes for.
    public nonisolated let node: String
    /// How ended sessions' summaries are kept rendered, if at all.
    nonisolated let rendering: SummaryRendering?
    private var connection: PostgresConnection?
    /// The connections REST reads run on.
    nonisolated let readers: PostgresReadPool
    /// How much of each live session's reps and series this store has written (see ``WrittenDetails``), so that a
    /// checkpoint writes only what came since. Changed only once the transaction that wrote them has committed.
    var written: [SessionID: WrittenDetails] = [:]
    /// Whether connecting and migrating ran on the store's thread (for tests of the threading model).
    private(set) var openedOnStoreThread = false

    /// The store's thread: every method of this actor runs there.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Connects to the database at `url` and migrates its schema.
    /// - Parameters:
    ///   - url: `postgres://user[:password]@host[:port]/database`, with `?host=/socket/dir` for a Unix socket (any
    ///     libpq connection URI or string).
    ///   - configuration: Timeouts, reconnection and clock.
    /// - Throws: ``SessionStoreError/unavailable(message:)`` if the server cannot be reached;
    ///   ``SessionStoreError/server(sqlState:message:)`` if it refuses (authentication, permissions);
    ///   ``SessionStoreError/unsupportedSchemaVersion(found:newestKnown:)`` if newer code migrated it.
    public init(url: String, configuration: Configuration = Configuration()) async throws(SessionStoreError) {
        var options = PostgresConnection.Configuration()
        options.connectTimeoutSeconds = configuration.connectTimeoutSeconds
        options.initialBackoff = UInt64(max(1, configuration.reconnectDelayMilliseconds)) * 1_000_000
        options.maximumBackoff =
            UInt64(max(configuration.reconnectDelayMilliseconds, configuration.maximumReconnectDelayMilliseconds, 1))
            * 1_000_000
        executor = StoreThreadExecutor()
        clock = configuration.clock
        node = configuration.node
        rendering = configuration.rendering
        connection = nil
        readers = try await PostgresReadPool(size: configuration.readConnections, url: url, configuration: options)
        // Fully initialized: from here on the init runs isolated, on the store's thread.
        do {
            let connection = try PostgresConnection(url: url, configuration: options)
            try PostgresSchema.migrate(connection, now: configuration.clock())
            self.connection = connection
        } catch {
            await readers.close()
            throw error
        }
        openedOnStoreThread = executor.isCurrentThread
    }

    /// Closes the connections; later calls throw ``SessionStoreError/closed``. Calling it again does nothing.
    public func close() async {
        connection?.close()
        connection = nil
        await readers.close()
    }

    /// Checks that the database takes a write transaction now (fails on a read-only standby or when unreachable),
    /// without changing anything.
    /// - Throws: Database errors.
    public func probe() throws(SessionStoreError) {
        _ = try database().query(
            """
            INSERT INTO store_probe (node, written_at) VALUES ($1, $2)
            ON CONFLICT (node) DO UPDATE SET written_at = excluded.written_at
            """, [.text(node), .int(clock())])
    }

    /// Lets the next call try to connect at once, not at the end of the backoff after failed attempts; attempts
    /// stay at least ``Configuration/reconnectDelayMilliseconds`` apart (``PostgresConnection/expediteReconnection()``).
    public func expediteReconnection() {
        connection?.expediteReconnection()
    }

    /// The open connection.
    /// - Throws: ``SessionStoreError/closed`` after ``close()``.
    func database() throws(SessionStoreError) -> PostgresConnection {
        assert(executor.isCurrentThread, "PostgreSQL used off the store's thread")
        guard let connection else { throw .closed }
        return connection
    }

    /// Whether the caller runs on the store's thread (for tests of the threading model).
    nonisolated func isOnStoreThread() -> Bool { executor.isCurrentThread }

    /// Whether an isolated call runs on the store's thread (for tests of the threading model).
    func isolatedCallRunsOnStoreThread() -> Bool { isOnStoreThread() }
}
