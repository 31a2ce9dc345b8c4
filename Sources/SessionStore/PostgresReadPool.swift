import Glibc
import Synchronization

/// Connections for reads, each owned by an actor on a thread of its own, so that REST reads run side by side with
/// one another and with the store's writes instead of queueing behind them on one connection.
///
/// A read goes to the connection with the fewest reads in flight (the first of those that tie). Each connection
/// reconnects by itself after a loss, with the same backoff as the store's (``PostgresConnection``); a read that
/// finds its connection lost runs once more on a new one, so a restarted server costs no failed read. A read sees
/// every write the store had committed when it began: PostgreSQL makes a commit visible to every connection once it
/// is acknowledged.
final class PostgresReadPool: Sendable {
    private let readers: [PostgresReader]
    /// Reads in flight on each reader.
    private let inFlight: Mutex<[Int]>

    /// The default size: one connection per processor, at most four.
    static var defaultSize: Int { max(1, min(4, sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// Opens `size` connections to the database at `url`.
    /// - Throws: ``SessionStoreError/unavailable(message:)`` if the server cannot be reached;
    ///   ``SessionStoreError/server(sqlState:message:)`` if it refuses.
    init(size: Int, url: String, configuration: PostgresConnection.Configuration) async throws(SessionStoreError) {
        var readers: [PostgresReader] = []
        for _ in 0..<max(1, size) {
            do {
                readers.append(try await PostgresReader(url: url, configuration: configuration))
            } catch {
                for reader in readers { await reader.close() }
                throw error
            }
        }
        self.readers = readers
        inFlight = Mutex([Int](repeating: 0, count: readers.count))
    }

    /// How many connections the pool has.
    var size: Int { readers.count }

    /// Runs `body` on the connection with the fewest reads in flight, on that connection's thread.
    /// - Parameter body: The read.
    /// - Returns: What it returns.
    /// - Throws: What it throws; ``SessionStoreError/closed`` after ``close()``.
    func read<T: Sendable>(
        _ body: @Sendable (PostgresConnection) throws(SessionStoreError) -> T
    ) async throws(SessionStoreError) -> T {
        let index = inFlight.withLock { counts in
            let index = counts.indices.min { counts[$0] < counts[$1] } ?? 0
            counts[index] += 1
            return index
        }
        defer { inFlight.withLock { $0[index] -= 1 } }
        return try await readers[index].run(body)
    }

    /// Closes every connection; reads after it throw ``SessionStoreError/closed``.
    func close() async {
        for reader in readers { await reader.close() }
    }

    /// For tests of the threading model: whether `body` ran on one of the pool's threads and not on `other`'s.
    func runsOnItsOwnThreads(besides other: @Sendable () -> Bool) async -> Bool {
        var all = true
        for reader in readers { all = await reader.runsOnItsThread(besides: other) && all }
        return all
    }
}

/// One read connection and the thread it is used on.
private actor PostgresReader {
    private let executor: StoreThreadExecutor
    private var connection: PostgresConnection?

    /// The reader's thread: every method of this actor runs there.
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Connects, on the reader's thread.
    init(url: String, configuration: PostgresConnection.Configuration) async throws(SessionStoreError) {
        executor = StoreThreadExecutor(name: "session-reads")
        connection = nil
        // Fully initialized: from here on the init runs isolated, on the reader's thread.
        connection = try PostgresConnection(url: url, configuration: configuration)
    }

    /// Runs `body` with the connection; once more, on a new connection, if it finds the open one lost (a read
    /// changes nothing, so running it again is safe; a server that is down fails the second attempt at once).
    func run<T: Sendable>(
        _ body: @Sendable (PostgresConnection) throws(SessionStoreError) -> T
    ) throws(SessionStoreError) -> T {
        guard let connection else { throw .closed }
        let wasConnected = connection.isConnected
        do {
            return try body(connection)
        } catch .unavailable(let message) {
            guard wasConnected, !connection.isConnected else { throw .unavailable(message: message) }
            return try body(connection)
        }
    }

    /// Closes the connection.
    func close() {
        connection?.close()
        connection = nil
    }

    /// Whether an isolated call runs on this reader's thread and `other` says it is not its thread.
    func runsOnItsThread(besides other: @Sendable () -> Bool) -> Bool {
        executor.isCurrentThread && !other()
    }
}
