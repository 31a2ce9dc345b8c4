import Basics
import CLibPQ
import Glibc

/// One libpq connection to a PostgreSQL server, its cache of prepared statements, and reconnection with backoff.
///
/// Not `Sendable`: it belongs to the ``PostgresSessionStore`` actor, which runs on its own thread, so every blocking
/// libpq call happens there and never on an event loop.
///
/// A connection the server closed while it was idle (a restart) is connected again before the next call sends
/// anything. One lost during a call fails that call with ``SessionStoreError/unavailable(message:)``; the next
/// call connects again at once. A connection attempt that fails makes the calls that follow fail the same way,
/// without trying, until a backoff has passed (doubling from ``Configuration/initialBackoff`` to
/// ``Configuration/maximumBackoff``), so a server that is down is not hammered.
final class PostgresConnection {
    /// How the connection is made and retried. Every field has a safe default.
    struct Configuration: Sendable {
        /// How long one connection attempt may take, seconds (libpq's `connect_timeout`; at least 2).
        var connectTimeoutSeconds = 10
        /// The wait after the first failed attempt, nanoseconds.
        var initialBackoff: UInt64 = 100_000_000
        /// The longest wait between attempts, nanoseconds.
        var maximumBackoff: UInt64 = 5_000_000_000
        /// A monotonic clock, nanoseconds.
        var clock: @Sendable () -> UInt64 = MonotonicClock.nanoseconds
        /// Whether input waiting on the idle connection means the server let it go (``wasClosedByServer(_:)``):
        /// so for a connection that listens to nothing; not for one that `LISTEN`s, which is sent notifications.
        var idleInputMeansClosed = true
    }

    private let url: String
    private let configuration: Configuration
    private var handle: OpaquePointer?
    private var closed = false
    /// Statement names by SQL text, for this connection (a new connection prepares again); at most
    /// ``maximumPrepared``.
    private var prepared: [String: String] = [:]
    /// How many statements a connection keeps prepared: more than the store's statement shapes with the few page
    /// sizes clients use, while statements that differ without end (a client trying every page size) cost the
    /// server's memory only up to this many before all are deallocated and prepared again as used.
    static let maximumPrepared = 256
    /// How many statement names this connection has given out.
    private var statementsNamed = 0
    private var backoff: UInt64
    private var retryAt: UInt64?
    /// When the last failed connection attempt began.
    private var lastAttempt: UInt64?
    private var lastFailure = ""

    /// Connects to the server at `url` (`postgres://user@host:port/db`, `?host=/socket/dir` for a Unix socket, or
    /// any libpq connection string).
    /// - Throws: ``SessionStoreError/unavailable(message:)`` when the server cannot be reached.
    init(url: String, configuration: Configuration = Configuration()) throws(SessionStoreError) {
        self.url = url
        self.configuration = configuration
        backoff = configuration.initialBackoff
        _ = try openConnection()
    }

    deinit { close() }

    /// Closes the connection; later calls throw ``SessionStoreError/closed``.
    func close() {
        closed = true
        drop()
    }

    /// Whether a connection is open now (it may still turn out to be lost when next used).
    var isConnected: Bool { handle.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// Whether a transaction is open on the connection now (in progress or failed), to roll back.
    private var inTransaction: Bool {
        guard isConnected, let handle else { return false }
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR
    }

    /// Runs SQL without parameters and without rows to read: one or more statements (DDL, transaction control).
    /// - Throws: ``SessionStoreError/server(sqlState:message:)``; ``SessionStoreError/unavailable(message:)``.
    func execute(_ sql: String) throws(SessionStoreError) {
        let connection = try openConnection()
        _ = try check(PQexec(connection, sql), on: connection)
    }

    /// Runs one statement with parameters (`$1`, `$2`, …), prepared on first use on this connection; rows come back
    /// in binary.
    /// - Parameters:
    ///   - sql: The statement.
    ///   - parameters: Its parameters, in order: text, or binary for `bytea`.
    /// - Returns: The rows, and how many rows a write changed.
    /// - Throws: ``SessionStoreError/server(sqlState:message:)``; ``SessionStoreError/unavailable(message:)``.
    @discardableResult
    func query(_ sql: String, _ parameters: [PostgresValue] = []) throws(SessionStoreError) -> PostgresRows {
        let connection = try openConnection()
        let name = try statementName(for: sql, on: connection)
        let result = Self.withParameters(parameters) { count, values, lengths, formats in
            PQexecPrepared(connection, name, count, values, lengths, formats, 1)
        }
        return try check(result, on: connection)
    }

    /// Runs statements one after another in one round trip (libpq's pipeline mode): all are sent, then all their
    /// results read. Statements are prepared on first use, in the same round trip.
    ///
    /// The statements are one transaction, all or nothing: a statement that fails skips the ones after it (they
    /// are not run), rolls back the ones before it, and its error is thrown.
    /// - Parameters:
    ///   - statements: The statements, in order.
    ///   - mode: Nil for the server's implicit transaction (its default isolation level); otherwise the transaction
    ///     begins with `BEGIN` followed by `mode` (an isolation level, `READ ONLY`).
    /// - Returns: Each statement's rows, in order.
    /// - Throws: The first failing statement's ``SessionStoreError/server(sqlState:message:)``;
    ///   ``SessionStoreError/unavailable(message:)`` when the connection is lost (then a transaction had no effect).
    @discardableResult
    func pipeline(
        _ statements: [PostgresStatement], transaction mode: String? = nil
    ) throws(SessionStoreError) -> [PostgresRows] {
        guard !statements.isEmpty || mode != nil else { return [] }
        var sent = statements
        if let mode {
            sent.insert(PostgresStatement("BEGIN \(mode)"), at: 0)
            sent.append(PostgresStatement("COMMIT"))
        }
        let connection = try openConnection()
        try makeRoom(for: Set(sent.lazy.map(\.sql).filter { self.prepared[$0] == nil }).count, on: connection)
        guard PQenterPipelineMode(connection) == 1 else { throw lose(connection) }
        // What comes back, in order: each new statement's preparation, then each statement's result.
        var expected: [PipelineResult] = []
        var preparing: [String: String] = [:]
        for (index, statement) in sent.enumerated() {
            let name: String
            if let known = prepared[statement.sql] ?? preparing[statement.sql] {
                name = known
            } else {
                name = newStatementName()
                guard PQsendPrepare(connection, name, statement.sql, 0, nil) == 1 else { throw lose(connection) }
                preparing[statement.sql] = name
                expected.append(.preparation(sql: statement.sql, name: name))
            }
            let queued = Self.withParameters(statement.parameters) { count, values, lengths, formats in
                PQsendQueryPrepared(connection, name, count, values, lengths, formats, 1)
            }
            guard queued == 1 else { throw lose(connection) }
            expected.append(.statement(index))
        }
        guard PQpipelineSync(connection) == 1 else { throw lose(connection) }
        var rows: [PostgresRows] = []
        rows.reserveCapacity(sent.count)
        var failure: SessionStoreError?
        for item in expected {
            guard let result = PQgetResult(connection) else { throw lose(connection) }
            // Each statement's results end with a null result.
            while let extra = PQgetResult(connection) { PQclear(extra) }
            let status = PQresultStatus(result)
            if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY {
                switch item {
                case .preparation(let sql, let name):
                    prepared[sql] = name
                    PQclear(result)
                case .statement: rows.append(PostgresRows(result))
                }
            } else if status == PGRES_PIPELINE_ABORTED {
                PQclear(result)
            } else {
                let error = Self.error(of: result, on: connection)
                if case .unavailable = error {
                    drop()
                    throw error
                }
                failure = failure ?? error
            }
        }
        guard let sync = PQgetResult(connection) else { throw lose(connection) }
        let synced = PQresultStatus(sync) == PGRES_PIPELINE_SYNC
        PQclear(sync)
        guard synced, PQexitPipelineMode(connection) == 1 else { throw lose(connection) }
        if let failure {
            // A failed statement inside the transaction leaves it open and aborted.
            if PQtransactionStatus(connection) == PQTRANS_INERROR { try execute("ROLLBACK") }
            throw failure
        }
        return mode == nil ? rows : Array(rows.dropFirst().dropLast())
    }

    /// What a pipeline reads back for each thing it sent.
    private enum PipelineResult {
        case preparation(sql: String, name: String)
        case statement(Int)
    }

    /// Calls `body` with `parameters` laid out as libpq takes them: count, values, lengths and formats.
    private static func withParameters<T>(
        _ parameters: [PostgresValue],
        _ body: (Int32, [UnsafePointer<CChar>?], [Int32], [Int32]) -> T
    ) -> T {
        // Every value in one buffer, text NUL-terminated; a pad byte keeps an empty bytea's pointer non-null
        // (a null pointer would send NULL).
        var buffer: [UInt8] = []
        var offsets: [Int] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        for parameter in parameters {
            switch parameter {
            case .null:
                offsets.append(-1)
                lengths.append(0)
                formats.append(0)
            case .text(let text):
                offsets.append(buffer.count)
                buffer += PostgresText.encode(text).utf8
                buffer.append(0)
                lengths.append(0)
                formats.append(0)
            case .binary(let bytes):
                offsets.append(buffer.count)
                buffer += bytes
                lengths.append(Int32(bytes.count))
                formats.append(1)
            }
        }
        buffer.append(0)
        return buffer.withUnsafeBytes { bytes in
            let values: [UnsafePointer<CChar>?] = offsets.map { offset in
                offset < 0 ? nil : bytes.baseAddress.map { ($0 + offset).assumingMemoryBound(to: CChar.self) }
            }
            return body(Int32(parameters.count), values, lengths, formats)
        }
    }

    /// Runs `body` in a transaction, committing if it returns and rolling back if it throws.
    /// - Parameter mode: What follows `BEGIN` (an isolation level, `READ ONLY`), empty for the server's default.
    /// - Throws: What `body` throws; ``SessionStoreError/server(sqlState:message:)``;
    ///   ``SessionStoreError/unavailable(message:)``.
    func transaction<T>(
        _ mode: String = "", _ body: () throws(SessionStoreError) -> T
    ) throws(SessionStoreError) -> T {
        try execute(mode.isEmpty ? "BEGIN" : "BEGIN \(mode)")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if inTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Runs `body` in a transaction whose `BEGIN` goes with its first pipeline and whose `COMMIT` goes with the
    /// statements left for the end (``PostgresPipelinedTransaction``): two round trips fewer than
    /// ``transaction(_:_:)``. It commits if `body` returns and rolls back if it throws.
    /// - Throws: What `body` throws; ``SessionStoreError/server(sqlState:message:)``;
    ///   ``SessionStoreError/unavailable(message:)``.
    func pipelinedTransaction<T>(
        _ body: (inout PostgresPipelinedTransaction) throws(SessionStoreError) -> T
    ) throws(SessionStoreError) -> T {
        var transaction = PostgresPipelinedTransaction(connection: self)
        do {
            let result = try body(&transaction)
            transaction.add([PostgresStatement("COMMIT")])
            _ = try transaction.run([])
            return result
        } catch {
            if inTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    // MARK: Notifications (LISTEN/NOTIFY)

    /// The connection's socket, for waiting on notifications with `poll`; nil when not connected.
    var socket: Int32? {
        guard let handle, PQstatus(handle) == CONNECTION_OK else { return nil }
        let socket = PQsocket(handle)
        return socket >= 0 ? socket : nil
    }

    /// Reads what the server sent (without waiting) and returns the notifications received, in order.
    /// - Throws: ``SessionStoreError/unavailable(message:)`` when the connection is lost.
    func notifications() throws(SessionStoreError) -> [(channel: String, payload: String)] {
        guard !closed else { throw .closed }
        guard let handle, PQstatus(handle) == CONNECTION_OK else {
            drop()
            throw .unavailable(message: "not connected")
        }
        guard PQconsumeInput(handle) == 1 else {
            let message = Self.message(of: handle)
            drop()
            throw .unavailable(message: message)
        }
        var received: [(channel: String, payload: String)] = []
        while let notification = PQnotifies(handle) {
            received.append(
                (String(cString: notification.pointee.relname), String(cString: notification.pointee.extra)))
            PQfreemem(notification)
        }
        return received
    }

    /// `text` as an SQL string literal, quoted and escaped for this connection (for statements built as text).
    /// - Throws: ``SessionStoreError/unavailable(message:)`` when not connected.
    func literal(_ text: String) throws(SessionStoreError) -> String {
        let connection = try openConnection()
        let escaped = text.withCString { PQescapeLiteral(connection, $0, strlen($0)) }
        guard let escaped else {
            throw .server(sqlState: "22021", message: Self.message(of: connection))
        }
        defer { PQfreemem(escaped) }
        return String(cString: escaped)
    }

    /// Brings the next connection attempt forward to ``Configuration/initialBackoff`` after the last failed one: a
    /// write is waiting, and a server back after a short restart should take it at once, not at the end of a backoff
    /// that doubled while it was down. Attempts stay that far apart however often this is called.
    func expediteReconnection() {
        guard let retryAt, let lastAttempt else { return }
        self.retryAt = min(retryAt, lastAttempt &+ configuration.initialBackoff)
    }

    /// The open connection, connecting first when there is none (unless a failed attempt's backoff runs).
    private func openConnection() throws(SessionStoreError) -> OpaquePointer {
        guard !closed else { throw .closed }
        if let handle {
            let closedWhileIdle = configuration.idleInputMeansClosed && Self.wasClosedByServer(handle)
            if PQstatus(handle) == CONNECTION_OK && !closedWhileIdle { return handle }
            drop()
        }
        let now = configuration.clock()
        if let retryAt, now < retryAt {
            throw .unavailable(message: "\(lastFailure) (next attempt in \((retryAt - now) / 1_000_000) ms)")
        }
        let keywords = ["dbname", "connect_timeout", "application_name"]
        let values = [url, "\(max(2, configuration.connectTimeoutSeconds))", "motion-server"]
        let connection = withCStrings(keywords) { keywords in
            withCStrings(values) { values in PQconnectdbParams(keywords, values, 1) }
        }
        guard let connection, PQstatus(connection) == CONNECTION_OK else {
            lastFailure = connection.map(Self.message(of:)) ?? "out of memory"
            PQfinish(connection)
            lastAttempt = now
            retryAt = now &+ backoff
            backoff = min(backoff * 2, configuration.maximumBackoff)
            throw .unavailable(message: lastFailure)
        }
        (retryAt, backoff) = (nil, configuration.initialBackoff)
        handle = connection
        return connection
    }

    /// Whether the server has let this idle connection go (a restart, a crash, an administrator's
    /// `pg_terminate_backend`): its socket is readable with no query outstanding. A connection that listens to
    /// nothing is sent nothing between queries but the server's farewell (`FATAL 57P01`, then the end of the stream),
    /// or at worst a parameter's new value after a configuration reload; either way the call connects again before
    /// sending anything, which costs one connection, instead of failing on a connection the server closed while it
    /// was idle.
    private static func wasClosedByServer(_ handle: OpaquePointer) -> Bool {
        var socket = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        guard socket.fd >= 0 else { return true }
        return poll(&socket, 1, 0) > 0
    }

    private func statementName(for sql: String, on connection: OpaquePointer) throws(SessionStoreError) -> String {
        if let name = prepared[sql] { return name }
        try makeRoom(for: 1, on: connection)
        let name = newStatementName()
        _ = try check(PQprepare(connection, name, sql, 0, nil), on: connection)
        prepared[sql] = name
        return name
    }

    /// Deallocates every prepared statement when `count` more would not fit in ``maximumPrepared``.
    private func makeRoom(for count: Int, on connection: OpaquePointer) throws(SessionStoreError) {
        guard prepared.count + count > Self.maximumPrepared else { return }
        _ = try check(PQexec(connection, "DEALLOCATE ALL"), on: connection)
        prepared.removeAll()
    }

    /// How many statements are prepared on this connection now (for tests).
    var preparedCount: Int { prepared.count }

    /// A statement name not used yet on this connection.
    private func newStatementName() -> String {
        statementsNamed += 1
        return "s\(statementsNamed)"
    }

    /// The rows of a successful result; otherwise the result is cleared and its error thrown (see
    /// ``error(of:on:)``), a lost connection dropped.
    private func check(
        _ result: OpaquePointer?, on connection: OpaquePointer
    ) throws(SessionStoreError) -> PostgresRows {
        if let result {
            let status = PQresultStatus(result)
            if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY {
                return PostgresRows(result)
            }
        }
        let error = Self.error(of: result, on: connection)
        if case .unavailable = error { drop() }
        throw error
    }

    /// A failed result's error, the result cleared: lost connections (and the server shutting down) as
    /// ``SessionStoreError/unavailable(message:)``, the rest as ``SessionStoreError/server(sqlState:message:)``.
    private static func error(of result: OpaquePointer?, on connection: OpaquePointer) -> SessionStoreError {
        defer { PQclear(result) }
        let sqlState = result.flatMap { PQresultErrorField($0, sqlStateField) }.map { String(cString: $0) } ?? ""
        let message =
            result.flatMap { PQresultErrorField($0, messageField) }.map { String(cString: $0) }
            ?? Self.message(of: connection)
        if PQstatus(connection) != CONNECTION_OK || sqlState.hasPrefix("08") || sqlState.hasPrefix("57P") {
            return .unavailable(message: sqlState.isEmpty ? message : "\(sqlState): \(message)")
        }
        return .server(sqlState: sqlState, message: message)
    }

    /// Drops a connection found lost (or left in a state it cannot be used in) and returns the error to throw.
    private func lose(_ connection: OpaquePointer) -> SessionStoreError {
        let message = Self.message(of: connection)
        drop()
        return .unavailable(message: message)
    }

    private func drop() {
        if let handle { PQfinish(handle) }
        handle = nil
        prepared = [:]
        statementsNamed = 0
    }

    /// `PG_DIAG_SQLSTATE` and `PG_DIAG_MESSAGE_PRIMARY` (character macros Swift does not import).
    private static let sqlStateField = Int32(UInt8(ascii: "C"))
    private static let messageField = Int32(UInt8(ascii: "M"))

    private static func message(of connection: OpaquePointer) -> String {
        guard let text = PQerrorMessage(connection) else { return "unknown error" }
        let message = String(cString: text)
        return message.hasSuffix("\n") ? String(message.dropLast()) : message
    }
}

/// One statement of a ``PostgresConnection/pipeline(_:transaction:)``: SQL with `$1`, `$2`, … and their values.
struct PostgresStatement {
    var sql: String
    var parameters: [PostgresValue]

    init(_ sql: String, _ parameters: [PostgresValue] = []) {
        self.sql = sql
        self.parameters = parameters
    }
}

/// Runs `body` with NUL-terminated copies of `strings` as a C array (`const char *const *`).
private func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> T) -> T {
    var storage: [UInt8] = []
    var offsets: [Int] = []
    for string in strings {
        offsets.append(storage.count)
        storage += string.utf8
        storage.append(0)
    }
    return storage.withUnsafeBytes { bytes in
        let pointers: [UnsafePointer<CChar>?] =
            offsets.map { offset in
                bytes.baseAddress.map { ($0 + offset).assumingMemoryBound(to: CChar.self) }
            } + [nil]
        return body(pointers)
    }
}

/// A transaction sent as pipelines (``PostgresConnection/pipelinedTransaction(_:)``): statements whose results
/// are not needed yet wait, and go with the next pipeline.
struct PostgresPipelinedTransaction {
    fileprivate let connection: PostgresConnection
    /// Statements sent with the next pipeline, `BEGIN` first.
    private var waiting = [PostgresStatement("BEGIN")]

    fileprivate init(connection: PostgresConnection) { self.connection = connection }

    /// Leaves `statements` to go with the next pipeline (or the `COMMIT`).
    mutating func add(_ statements: [PostgresStatement]) { waiting += statements }

    /// Sends the waiting statements and `statements` in one pipeline.
    /// - Returns: The rows of each of `statements`, in order.
    /// - Throws: The first failing statement's error (waiting ones included); then the transaction is rolled back.
    mutating func run(_ statements: [PostgresStatement]) throws(SessionStoreError) -> [PostgresRows] {
        let sent = waiting.count
        let rows = try connection.pipeline(waiting + statements)
        waiting = []
        return Array(rows.dropFirst(sent))
    }

    /// Runs one statement now, after the waiting ones, in the same round trip.
    /// - Returns: Its rows.
    mutating func query(_ sql: String, _ parameters: [PostgresValue] = []) throws(SessionStoreError) -> PostgresRows {
        try run([PostgresStatement(sql, parameters)])[0]
    }
}
