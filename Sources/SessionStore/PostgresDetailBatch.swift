import MotionCore

/// The statements that write the reps and series of several sessions (``DetailWrites``) at once: each kind of row
/// deleted in one statement and inserted in one, from arrays (`unnest`), so that a batch of checkpoints or creates
/// costs PostgreSQL a few statements whatever its size.
///
/// A session is added at most once: every deletion runs before every insert, which is all the order one session's
/// writes need (and an upsert of a shape cannot change one row twice).
struct PostgresDetailBatch {
    /// The sessions whose reps are deleted.
    private var repDeletions: [PostgresValue] = []
    /// Per chunk table: the sessions whose chunks from a position on are deleted, and that position.
    private var chunkDeletions: [String: PostgresColumns] = [:]
    private var shapes: [String: PostgresColumns] = [:]
    private var reps = PostgresColumns(Self.repColumns.count)
    private var chunks: [String: (ids: [PostgresValue], firsts: [PostgresValue], samples: [[UInt8]?])] = [:]

    /// The reps table's columns and their types, in the order of ``add(_:_:_:)``'s rows.
    private static let repColumns: [(name: String, type: String)] = [
        ("session_id", "text"), ("\"position\"", "int8"), ("number", "int8"), ("peak", "float8"),
        ("trough", "float8"), ("start_t", "float8"), ("end_t", "float8"), ("faults", "text"),
        ("time_to_peak", "float8"), ("side", "text"), ("motion_smoothness", "float8"), ("motion_tremor", "float8"),
        ("motion_rms", "float8"), ("motion_covered", "float8"),
    ]

    private static let repInsert = PostgresColumns.insert(into: "reps", repColumns)

    /// A series' shape table's columns.
    private static let shapeColumns: [(name: String, type: String)] = [
        ("session_id", "text"), ("\"interval\"", "float8"), ("capacity", "int8"),
    ]

    /// A series' chunk table's columns (the samples go as a `bytea[]` in binary).
    private static let chunkColumns: [(name: String, type: String)] = [
        ("session_id", "text"), ("first", "int8"), ("samples", "bytea"),
    ]

    /// The columns of a deletion of chunks: the session, and the first position deleted.
    private static let chunkDeletionColumns: [(name: String, type: String)] = [
        ("session_id", "text"), ("first", "int8"),
    ]

    /// Adds the writes of `summary`'s reps and series that `writes` decided.
    mutating func add(_ id: SessionID, _ summary: SessionSummary, _ writes: DetailWrites) {
        let key = PostgresValue.string(id.description)
        if writes.replacesReps { repDeletions.append(key) }
        for position in writes.newReps {
            let rep = summary.reps[position]
            reps.append([
                key, .int(position), .int(rep.index), .double(rep.peak), .double(rep.trough), .double(rep.start),
                .double(rep.end), .string(SessionRecordCoding.encode(rep.faults)), .double(rep.timeToPeak),
                .string(rep.side?.rawValue), .double(rep.motion?.smoothness), .double(rep.motion?.tremor),
                .double(rep.motion?.rms), .double(rep.motion?.covered),
            ])
        }
        add(summary.series, writes.series, of: key)
        add(summary.motion, writes.motion, of: key)
    }

    /// Adds the writes of one series, as `write` says.
    private mutating func add<Series: ChunkedSeries>(_ series: Series, _ write: SeriesWrite?, of key: PostgresValue) {
        guard let write else { return }
        if let deletesFrom = write.deletesFrom {
            chunkDeletions[Series.chunkTable, default: PostgresColumns(Self.chunkDeletionColumns.count)].append([
                key, .int(deletesFrom),
            ])
        }
        if write.writesShape {
            shapes[Series.shapeTable, default: PostgresColumns(Self.shapeColumns.count)].append([
                key, .double(series.interval), .int(series.capacity),
            ])
        }
        if write.appends {
            chunks[Series.chunkTable, default: ([], [], [])].ids.append(key)
            chunks[Series.chunkTable]?.firsts.append(.int(write.firstSample))
            chunks[Series.chunkTable]?.samples.append(series.encodedSamples(from: write.firstSample))
        }
    }

    /// The statements, in the order they must run: deletions, then shapes, reps and chunks.
    var statements: [PostgresStatement] {
        var statements: [PostgresStatement] = []
        if !repDeletions.isEmpty {
            statements.append(
                PostgresStatement("DELETE FROM reps WHERE session_id = ANY ($1::text[])", [.array(repDeletions)]))
        }
        for (table, rows) in chunkDeletions.sorted(by: { $0.key < $1.key }) {
            statements.append(
                PostgresStatement(
                    """
                    DELETE FROM \(table) AS c USING \(PostgresColumns.unnest(Self.chunkDeletionColumns)) AS d (id, first)
                    WHERE c.session_id = d.id AND c.first >= d.first
                    """, rows.arrays))
        }
        for (table, rows) in shapes.sorted(by: { $0.key < $1.key }) {
            statements.append(
                PostgresStatement(
                    PostgresColumns.insert(into: table, Self.shapeColumns) + """

                        ON CONFLICT (session_id) DO UPDATE SET "interval" = excluded."interval",
                            capacity = excluded.capacity
                        """, rows.arrays))
        }
        if !reps.isEmpty { statements.append(PostgresStatement(Self.repInsert, reps.arrays)) }
        for (table, rows) in chunks.sorted(by: { $0.key < $1.key }) {
            statements.append(
                PostgresStatement(
                    PostgresColumns.insert(into: table, Self.chunkColumns),
                    [.array(rows.ids), .array(rows.firsts), .byteaArray(rows.samples)]))
        }
        return statements
    }
}

/// Rows gathered column by column, each column sent as one array parameter (``PostgresValue/array(_:)``).
struct PostgresColumns {
    private var columns: [[PostgresValue]]

    init(_ count: Int) { columns = Array(repeating: [], count: count) }

    var isEmpty: Bool { columns.first?.isEmpty ?? true }

    /// Adds a row: one value per column.
    mutating func append(_ row: [PostgresValue]) {
        precondition(row.count == columns.count, "a row has a value for each column")
        for (column, value) in row.enumerated() { columns[column].append(value) }
    }

    /// Each column as an array parameter.
    var arrays: [PostgresValue] { columns.map(PostgresValue.array) }

    /// `unnest` of one array parameter per column, from `$first` on: `unnest($1::text[], $2::int8[])`.
    static func unnest(_ columns: [(name: String, type: String)], from first: Int = 1) -> String {
        let arrays = columns.enumerated().map { "$\(first + $0.offset)::\($0.element.type)[]" }
        return "unnest(\(arrays.joined(separator: ", ")))"
    }

    /// The insert into `table` of the rows of `columns`' arrays.
    static func insert(into table: String, _ columns: [(name: String, type: String)]) -> String {
        "INSERT INTO \(table) (\(columns.map(\.name).joined(separator: ", "))) SELECT * FROM \(unnest(columns))"
    }
}
