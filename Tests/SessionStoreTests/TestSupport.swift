import Foundation
import MotionCore
import PostgresTestSupport
import Synchronization
import Testing

@testable import SessionStore

/// A fresh directory under the system's temporary directory, removed after `body`.
func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("session-store-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

/// Opens a SQLite store on a fresh file, runs `body`, then closes it (for tests of the SQLite store alone).
func withSQLiteStore<T>(
    clock: ManualClock = ManualClock(), _ body: (SQLiteSessionStore, URL) async throws -> T
) async throws -> T {
    try await withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("store.sqlite")
        let store = try await SQLiteSessionStore(path: path.path, configuration: .init(clock: clock.read))
        let result = try await body(store, path)
        await store.close()
        return result
    }
}

/// Opens a store of `kind` on a fresh database, runs `body`, then closes it: the SQLite store on a new file in a
/// temporary directory, the PostgreSQL store on a new database in the server the tests start
/// (``PostgresTestServer``). Without the PostgreSQL binaries the PostgreSQL case is cancelled, which reports it
/// skipped with the reason.
func withStore<T>(
    _ kind: StoreKind, clock: ManualClock = ManualClock(), _ body: (any TestedStore, TestDatabase) async throws -> T
) async throws -> T {
    switch kind {
    case .sqlite:
        return try await withTemporaryDirectory { directory in
            let database = TestDatabase(
                kind: kind, location: directory.appendingPathComponent("store.sqlite").path, clock: clock)
            let store = try await database.open()
            let result = try await body(store, database)
            await store.close()
            return result
        }
    case .postgres:
        guard PostgresTestServer.isInstalled else {
            // Debian package `postgresql` (PostgreSQL 15); `make deps` installs it.
            try Test.cancel(
                "PostgreSQL server binaries not found in \(PostgresTestServer.binaries): apt install postgresql")
        }
        let database = TestDatabase(
            kind: kind, location: try await PostgresTestServer.shared.createDatabase(), clock: clock)
        let store = try await database.open()
        let result = try await body(store, database)
        await store.close()
        return result
    }
}

/// The stores the shared tests run against.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }
}

/// A store under test, with what the tests inspect beyond the protocol.
protocol TestedStore: SessionStore {
    /// What the store has written of each live session's details.
    var written: [SessionID: WrittenDetails] { get async }
    /// Whether opening ran on the store's thread.
    var openedOnStoreThread: Bool { get async }
    /// Whether an isolated call runs on the store's thread.
    func isolatedCallRunsOnStoreThread() async -> Bool
    /// Whether the caller runs on the store's thread.
    func isOnStoreThread() -> Bool
}

extension SQLiteSessionStore: TestedStore {}
extension PostgresSessionStore: TestedStore {}

/// One test's database: where it is, stores opened on it, raw SQL on it.
struct TestDatabase: Sendable {
    let kind: StoreKind
    /// The SQLite file's path, or the PostgreSQL database's URL.
    let location: String
    let clock: ManualClock

    /// Opens another store on the database (the test closes it).
    /// - Parameters:
    ///   - node: The node it writes for: by default the same for every store a test opens, as one process opening
    ///     its database again; another id is another node (or a later run).
    ///   - rendering: How it keeps ended sessions' summaries rendered (none by default).
    func open(as node: String = "test-node", rendering: SummaryRendering? = nil) async throws -> any TestedStore {
        switch kind {
        case .sqlite:
            var configuration = SQLiteSessionStore.Configuration(clock: clock.read)
            configuration.node = node
            configuration.rendering = rendering
            return try await SQLiteSessionStore(path: location, configuration: configuration)
        case .postgres:
            var configuration = PostgresSessionStore.Configuration(clock: clock.read)
            configuration.node = node
            configuration.rendering = rendering
            return try await PostgresSessionStore(url: location, configuration: configuration)
        }
    }

    /// A second connection for raw SQL.
    func raw() throws -> RawDatabase {
        switch kind {
        case .sqlite: return try RawDatabase(path: URL(fileURLWithPath: location))
        case .postgres: return try RawDatabase(url: location)
        }
    }

    /// SQL in the dialect of this database: `sqlite` for SQLite, `postgres` for PostgreSQL.
    func dialect(sqlite: String, postgres: String) -> String { kind == .sqlite ? sqlite : postgres }
}

/// A wall clock the test sets.
final class ManualClock: Sendable {
    private let milliseconds: Mutex<Int64>

    init(_ start: Int64 = 1_764_424_800_000) { milliseconds = Mutex(start) }

    var now: Int64 {
        get { milliseconds.withLock { $0 } }
        set { milliseconds.withLock { $0 = newValue } }
    }

    @Sendable func read() -> Int64 { now }

    func advance(by delta: Int64) { milliseconds.withLock { $0 += delta } }
}

/// Raw SQL on a store's database, through a second connection, for checks the store's API does not expose.
/// Parameters are written `?1` (PostgreSQL's `$1` is substituted).
struct RawDatabase {
    private enum Connection {
        case sqlite(SQLiteConnection)
        case postgres(PostgresConnection)
    }

    private let connection: Connection

    init(path: URL) throws { connection = .sqlite(try SQLiteConnection(path: path.path)) }

    init(url: String) throws { connection = .postgres(try PostgresConnection(url: url)) }

    /// The PostgreSQL connection (for tests of the PostgreSQL store alone).
    var postgres: PostgresConnection {
        guard case .postgres(let connection) = connection else { preconditionFailure("not a PostgreSQL database") }
        return connection
    }

    /// The SQLite connection (for tests of the SQLite store alone).
    var sqlite: SQLiteConnection {
        guard case .sqlite(let connection) = connection else { preconditionFailure("not a SQLite database") }
        return connection
    }

    func integer(_ sql: String, _ text: String? = nil) throws -> Int {
        switch connection {
        case .sqlite(let connection):
            return try connection.withStatement(sql) { statement throws(SessionStoreError) in
                if let text { try statement.bind(text, at: 1) }
                return try statement.step() ? statement.int(0) : 0
            }
        case .postgres(let connection):
            let rows = try connection.query(Self.numbered(sql), text.map { [PostgresValue.text($0)] } ?? [])
            return rows.first?.int(0) ?? 0
        }
    }

    func strings(_ sql: String, column: Int32 = 0) throws -> [String] {
        switch connection {
        case .sqlite(let connection):
            return try connection.withStatement(sql) { statement throws(SessionStoreError) in
                var rows: [String] = []
                while try statement.step() { rows.append(statement.string(column)) }
                return rows
            }
        case .postgres(let connection):
            return try connection.query(Self.numbered(sql)).rows.map { $0.text(column) }
        }
    }

    func execute(_ sql: String) throws {
        switch connection {
        case .sqlite(let connection): try connection.execute(sql)
        case .postgres(let connection): try connection.execute(sql)
        }
    }

    func close() {
        switch connection {
        case .sqlite(let connection): connection.close()
        case .postgres(let connection): connection.close()
        }
    }

    private static func numbered(_ sql: String) -> String { sql.replacingOccurrences(of: "?", with: "$") }
}

extension ValueSeries {
    /// A series of `count` samples at 10 Hz, every seventh value missing.
    static func make(count: Int = 40, interval: Double = 0.1, capacity: Int = 36_000) -> ValueSeries {
        var series = ValueSeries(interval: interval, capacity: capacity)
        for i in 0..<count { series.record(i % 7 == 3 ? nil : 20 + Double(i) * 1.37, at: 3.0 + Double(i) * 0.1) }
        return series
    }
}

extension MotionSeries {
    /// A series of `count` samples at 20 Hz of a phone turning slowly.
    static func make(count: Int = 40) -> MotionSeries {
        var series = MotionSeries()
        for i in 0..<count {
            let acceleration = MotionVector(x: Double(i % 5) * 0.5, y: -9.81 + Double(i) / 64, z: 0.25)
            series.record(MotionSample(t: 3.0 + Double(i) * 0.05, acceleration: acceleration))
        }
        return series
    }
}

extension SessionSummary {
    /// The holds ``make(exercise:side:frames:reps:baseline:alternating:series:motion:holds:)`` records: one broken
    /// early, one held past its time, with times that need every digit.
    static let madeHolds = [
        Hold(start: 3.1, held: 0.1 + 0.2, completed: false),
        Hold(start: 12.5, held: 121.03333333333333, completed: true),
    ]

    /// The prescription ``make(exercise:side:frames:reps:baseline:alternating:series:motion:holds:)`` records.
    static let prescribed = Prescription(
        target: 140, rest: 30, enter: 55.333333333333336, exit: 40, holdSeconds: nil, reps: 10, sets: 3)

    /// A summary with every part filled: reps with and without faults, with and without a time to peak, with and
    /// without motion values (smoothness and tremor), fault
    /// counts, a version and prescription, a series with gaps, a motion series, hold attempts (completed and not);
    /// for an alternating exercise, sides and tallies.
    static func make(
        exercise: String = "elbowFlexion", side: BodySide? = .right, frames: Int = 2_802, reps: Int = 3,
        baseline: Double? = 128.0, alternating: Bool = false, series: ValueSeries = .make(),
        motion: MotionSeries = .make(), holds: [Hold] = SessionSummary.madeHolds
    ) -> SessionSummary {
        let repList = (0..<reps).map { (i: Int) -> Rep in
            let offset = Double(i)
            let faults: FormFeedbackSet = i == 1 ? [.keepUpperArmStill, .keepHipsLevel] : []
            return Rep(
                index: i + 1, peak: 130.2 + offset, trough: 12.5, start: 3.1 + offset * 2, end: 5.0 + offset * 2,
                timeToPeak: i == 2 ? nil : 0.8 + offset / 10,
                side: alternating ? (i.isMultiple(of: 2) ? .left : .right) : nil,
                faults: faults,
                // Motion values judged from the phone's sensors: one with a smoothness, one still (none), then none.
                motion: i == 0
                    ? RepMotion(smoothness: -1.4375, tremor: 0.03125, rms: 0.8, covered: 1.9)
                    : i == 1 ? RepMotion(smoothness: nil, tremor: 0, rms: 0, covered: 1.25) : nil)
        }
        var perSide: [BodySide: SideTally] = [:]
        if alternating {
            perSide = [
                .left: SideTally(repCount: (reps + 1) / 2, rejectedCount: 0, best: reps > 0 ? 132.2 : nil),
                .right: SideTally(repCount: max(0, reps / 2 - 1), rejectedCount: reps > 1 ? 1 : 0, best: nil),
            ]
        }
        return SessionSummary(
            exercise: exercise, exerciseVersion: 2, side: alternating ? nil : side, prescription: prescribed,
            firstTimestamp: 1.5, lastTimestamp: 94.9, frames: frames, visibleFrames: frames - 84,
            repCount: max(0, reps - 1), rejectedCount: reps > 1 ? 1 : 0, best: reps > 0 ? 132.2 : nil,
            baseline: baseline, reps: repList, holds: holds,
            faultCounts: reps > 1 ? [.keepUpperArmStill: 2, .keepHipsLevel: 1] : [:],
            perSide: perSide, series: series, motion: motion)
    }
}

extension StoredSession {
    /// A live session of tenant `clinic-1` started at `startedAt`, with an id made from it.
    static func make(
        startedAt: Int64 = 1_764_424_800_000, random: UInt128 = 1, tenant: String = "clinic-1",
        subject: String? = "patient-17", status: SessionStatus = .live, endedAt: Int64? = nil,
        summary: SessionSummary = .make()
    ) -> StoredSession {
        StoredSession(
            id: SessionID(time: UInt64(startedAt), random: random), tenant: tenant, subject: subject, status: status,
            startedAt: startedAt, endedAt: endedAt, summary: summary)
    }
}
