import CSQLite

/// One SQLite connection and its cache of prepared statements.
///
/// Not `Sendable`: it belongs to the ``SQLiteSessionStore`` actor, which runs on its own thread, so every call here
/// happens on that thread. Closing (explicitly or in `deinit`) finalizes the cached statements first.
final class SQLiteConnection {
    private var handle: OpaquePointer?
    private var statements: [String: SQLiteStatement] = [:]

    /// Opens (creating if needed) the database at `path` in multi-thread mode: the caller serializes all use.
    /// - Throws: ``SessionStoreError/database(code:message:)``.
    init(path: String) throws(SessionStoreError) {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(db)
            throw .database(code: code, message: message)
        }
        handle = db
    }

    deinit { close() }

    /// Finalizes every cached statement and closes the connection; later calls throw ``SessionStoreError/closed``.
    func close() {
        for statement in statements.values { statement.finalize() }
        statements = [:]
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// Runs SQL without results (one or more statements: DDL, pragmas, transaction control).
    /// - Throws: ``SessionStoreError/database(code:message:)``.
    func execute(_ sql: String) throws(SessionStoreError) {
        let db = try open()
        let code = sqlite3_exec(db, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code) }
    }

    /// The cached prepared statement for `sql`, reset and with its bindings cleared, preparing it on first use.
    /// - Throws: ``SessionStoreError/database(code:message:)``.
    func statement(_ sql: String) throws(SessionStoreError) -> SQLiteStatement {
        let db = try open()
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        var raw: OpaquePointer?
        let code = sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard code == SQLITE_OK, let raw else { throw error(code) }
        let statement = SQLiteStatement(raw, connection: self)
        statements[sql] = statement
        return statement
    }

    /// Runs `body` with the cached statement for `sql`, resetting it afterwards so it holds no read snapshot.
    /// - Throws: What `body` throws; ``SessionStoreError/database(code:message:)``.
    func withStatement<T>(
        _ sql: String, _ body: (SQLiteStatement) throws(SessionStoreError) -> T
    ) throws(SessionStoreError) -> T {
        let statement = try statement(sql)
        defer { statement.reset() }
        return try body(statement)
    }

    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE`, so it never fails half-way on a lock upgrade), committing
    /// if it returns and rolling back if it throws.
    /// - Throws: What `body` throws; ``SessionStoreError/database(code:message:)``.
    func transaction<T>(_ body: () throws(SessionStoreError) -> T) throws(SessionStoreError) -> T {
        try inTransaction(begin: "BEGIN IMMEDIATE", body)
    }

    /// Runs `body` in a read transaction, so the statements in it see one snapshot of the database.
    /// - Throws: What `body` throws; ``SessionStoreError/database(code:message:)``.
    func readTransaction<T>(_ body: () throws(SessionStoreError) -> T) throws(SessionStoreError) -> T {
        try inTransaction(begin: "BEGIN DEFERRED", body)
    }

    private func inTransaction<T>(
        begin: String, _ body: () throws(SessionStoreError) -> T
    ) throws(SessionStoreError) -> T {
        try execute(begin)
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { handle.map { Int(sqlite3_changes64($0)) } ?? 0 }

    /// The error for a result code, with the connection's message.
    func error(_ code: Int32) -> SessionStoreError {
        guard let handle else { return .closed }
        return .database(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)))
    }

    private func open() throws(SessionStoreError) -> OpaquePointer {
        guard let handle else { throw .closed }
        return handle
    }
}

/// A prepared statement: bind by 1-based index, step, read columns by 0-based index.
///
/// Text and blobs are bound with `SQLITE_TRANSIENT` (SQLite copies them), so Swift buffers need not outlive the call;
/// text is bound with its byte length, so embedded NULs survive.
struct SQLiteStatement: StoreRow {
    private let handle: OpaquePointer
    private unowned let connection: SQLiteConnection

    init(_ handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    func finalize() { sqlite3_finalize(handle) }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func bind(_ value: Int64?, at index: Int32) throws(SessionStoreError) {
        let code = value.map { sqlite3_bind_int64(handle, index, $0) } ?? sqlite3_bind_null(handle, index)
        try check(code)
    }

    func bind(_ value: Int?, at index: Int32) throws(SessionStoreError) {
        try bind(value.map(Int64.init), at: index)
    }

    func bind(_ value: Double?, at index: Int32) throws(SessionStoreError) {
        let code = value.map { sqlite3_bind_double(handle, index, $0) } ?? sqlite3_bind_null(handle, index)
        try check(code)
    }

    func bind(_ value: String?, at index: Int32) throws(SessionStoreError) {
        guard var value else { return try check(sqlite3_bind_null(handle, index)) }
        let code = value.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                // An empty buffer may have no address; "" still binds empty text rather than NULL.
                guard let base = chars.baseAddress else {
                    return sqlite3_bind_text64(handle, index, "", 0, csqlite_transient(), UInt8(SQLITE_UTF8))
                }
                return sqlite3_bind_text64(
                    handle, index, base, UInt64(chars.count), csqlite_transient(), UInt8(SQLITE_UTF8))
            }
        }
        try check(code)
    }

    func bind(blob: [UInt8], at index: Int32) throws(SessionStoreError) {
        let code = blob.withUnsafeBytes { bytes in
            // A null pointer would bind NULL; an empty blob is a zero-length blob.
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return sqlite3_bind_zeroblob64(handle, index, 0) }
            return sqlite3_bind_blob64(handle, index, base, UInt64(bytes.count), csqlite_transient())
        }
        try check(code)
    }

    /// Advances to the next row.
    /// - Returns: Whether there is a row (false when done).
    /// - Throws: ``SessionStoreError/database(code:message:)``, e.g. a constraint violation.
    @discardableResult
    func step() throws(SessionStoreError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            let error = connection.error(code)
            sqlite3_reset(handle)
            throw error
        }
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    func string(_ column: Int32) -> String {
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    func sessionID(_ column: Int32) -> SessionID? { withUTF8(column) { SessionID(utf8: $0) } }

    /// Runs `body` with a column's text as UTF-8 bytes in place (valid only during the call), sparing a `String`.
    func withUTF8<T>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        let text = sqlite3_column_text(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        return body(UnsafeBufferPointer(start: text, count: text == nil ? 0 : count))
    }

    func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    private func check(_ code: Int32) throws(SessionStoreError) {
        guard code == SQLITE_OK else { throw connection.error(code) }
    }
}
