public import MotionCore

extension PostgresSessionStore {
    /// Stores a new session: its row, reps and series, in one transaction and one round trip (a pipeline).
    /// - Parameter session: The session.
    /// - Throws: ``SessionStoreError/alreadyExists`` if the id is taken; database errors.
    public func create(_ session: StoredSession) throws(SessionStoreError) {
        if let refusal = try create([session])[session.id] { throw refusal }
    }

    /// Stores several new sessions in one transaction and one round trip (a pipeline): every row in one insert from
    /// arrays, then every rep and series chunk a few inserts more (``PostgresDetailBatch``), so a burst of new
    /// sessions shares one commit.
    ///
    /// A taken id fails the rows' insert, and with it the whole pipeline, before any rep or chunk is written. Then
    /// each session is stored alone, to learn which ids were taken: slower, for what random ids make all but
    /// impossible.
    /// - Parameter sessions: The sessions.
    /// - Returns: ``SessionStoreError/alreadyExists`` for the ids that were taken (by a stored session, or by an
    ///   earlier session of the batch, which was stored).
    /// - Throws: Database errors; then none was stored.
    public func create(_ sessions: [StoredSession]) throws(SessionStoreError) -> [SessionID: SessionStoreError] {
        guard !sessions.isEmpty else { return [:] }
        let db = try database()
        for session in sessions { written[session.id] = nil }
        var details = PostgresDetailBatch()
        for session in sessions { details.add(session.id, session.summary, DetailWrites(new: session.summary)) }
        do {
            try db.pipeline([rowInsert(sessions, now: clock())] + details.statements)
        } catch .server(let sqlState, _) where sqlState == Self.uniqueViolation {
            guard sessions.count > 1 else { return [sessions[0].id: .alreadyExists] }
            var refused: [SessionID: SessionStoreError] = [:]
            for session in sessions {
                if let refusal = try create([session])[session.id] { refused[session.id] = refusal }
            }
            return refused
        }
        for session in sessions where session.status == .live { written[session.id] = WrittenDetails(session.summary) }
        return [:]
    }

    /// The insert of new sessions' rows, from one array per column; this node holds the live ones, and a client is
    /// attached to them. An ended one comes with its summary rendered (``SummaryRendering``).
    private func rowInsert(_ sessions: [StoredSession], now: Int64) -> PostgresStatement {
        var columns = PostgresColumns(Self.newRowColumns.count + Self.summaryColumnTypes.count)
        var renderings: [[UInt8]?] = []
        for session in sessions {
            let rendered = rendering?.rendered(session.summary, status: session.status)
            columns.append(
                [
                    .string(session.id.description), .string(session.tenant), .string(session.subject),
                    .string(session.status.rawValue), .int(session.startedAt), .int(session.endedAt),
                    .string(session.resumption?.start), .int(rendered == nil ? nil : rendering?.version),
                    .string(session.programme?.id), .int(session.programme?.version), .string(session.programme?.item),
                    .text(session.demo ? "true" : "false"),
                ] + Self.summaryColumns(session.summary))
            renderings.append(rendered)
        }
        return PostgresStatement(
            Self.rowInsertSQL,
            [.int(now), .string(node)] + columns.arrays
                + [.byteaArray(sessions.map(\.resumption?.tokenDigest)), .byteaArray(renderings)])
    }

    /// The columns of a new row that come from the session, before its summary's; then ``newRowByteaColumns``.
    private static let newRowColumns: [(name: String, type: String)] = [
        ("id", "text"), ("tenant", "text"), ("subject", "text"), ("status", "text"), ("started_at", "int8"),
        ("ended_at", "int8"), ("start_request", "text"), ("rendered_version", "int4"), ("programme_id", "text"),
        ("programme_version", "int4"), ("programme_item", "text"), ("demo", "bool"),
    ]

    /// The columns of a new row whose arrays are written as `bytea[]`, last.
    private static let newRowByteaColumns: [(name: String, type: String)] = [
        ("resume_digest", "bytea"), ("rendered", "bytea"),
    ]

    private static let rowInsertSQL: String = {
        let columns = newRowColumns + summaryColumnTypes + newRowByteaColumns
        let names = columns.map(\.name).joined(separator: ", ")
        return """
            INSERT INTO sessions (\(names), updated_at, holder, connected)
            SELECT \(names), $1, $2, CASE WHEN status = 'live' THEN true END
            FROM \(PostgresColumns.unnest(columns, from: 3)) AS u (\(names))
            """
    }()

    /// PostgreSQL's SQLSTATE for a unique violation.
    private static let uniqueViolation = "23505"

    /// Replaces a live session's summary, reps and series, in one transaction.
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    ///   - summary: The summary so far.
    /// - Throws: ``SessionStoreError/notFound``; ``SessionStoreError/notLive(_:)``; database errors.
    public func checkpoint(id: SessionID, tenant: String, summary: SessionSummary) throws(SessionStoreError) {
        try update(id: id, tenant: tenant, summary: summary, status: .live, endedAt: nil)
    }

    /// Checkpoints several live sessions in one transaction: one commit, one round of fsync, for all of them.
    ///
    /// Two round trips whatever the batch's size (``PostgresConnection/pipelinedTransaction(_:)``): `BEGIN` with one
    /// update of every row, from arrays, which returns the rows it changed; then the applied checkpoints' reps and
    /// series, a statement or two per table (``PostgresDetailBatch``), with `COMMIT`. One more query per checkpoint
    /// refused tells why. A session checkpointed twice in the batch takes a second round, after the first, for its
    /// later checkpoint.
    /// - Parameter batch: The checkpoints.
    /// - Returns: The checkpoints not applied (unknown or ended sessions), by session.
    /// - Throws: Database errors; then none was applied.
    public func checkpoint(_ batch: [SessionCheckpoint]) throws(SessionStoreError) -> [SessionID: SessionStoreError] {
        guard !batch.isEmpty else { return [:] }
        let db = try database()
        let now = clock()
        var batchWritten: [SessionID: WrittenDetails?] = [:]
        let refused: [SessionID: SessionStoreError]
        do {
            refused = try db.pipelinedTransaction {
                (transaction) throws(SessionStoreError) -> [SessionID: SessionStoreError] in
                var refused: [SessionID: SessionStoreError] = [:]
                for round in Self.rounds(of: batch) {
                    let update = batchUpdate(round, now: now)
                    let changed = Set(
                        try transaction.query(update.sql, update.parameters).rows.compactMap { $0.sessionID(0) })
                    var details = PostgresDetailBatch()
                    for item in round {
                        guard changed.contains(item.id) else {
                            (batchWritten[item.id], refused[item.id]) =
                                (.some(nil), try whyNotUpdated(id: item.id, tenant: item.tenant, in: &transaction))
                            continue
                        }
                        details.add(
                            item.id, item.summary,
                            DetailWrites(item.summary, after: batchWritten[item.id] ?? written[item.id]))
                        batchWritten[item.id] = WrittenDetails(item.summary)
                        refused[item.id] = nil
                    }
                    transaction.add(details.statements)
                }
                return refused
            }
        } catch {
            for item in batch { written[item.id] = nil }
            throw error
        }
        for (id, details) in batchWritten { written[id] = details }
        return refused
    }

    /// `batch` in rounds in which each session appears once: its first checkpoint in the first, its second in the
    /// second, and so on (one update cannot change a row twice).
    private static func rounds(of batch: [SessionCheckpoint]) -> [[SessionCheckpoint]] {
        var rounds: [[SessionCheckpoint]] = []
        var seen: [SessionID: Int] = [:]
        for item in batch {
            let round = seen[item.id, default: 0]
            seen[item.id] = round + 1
            if round == rounds.count { rounds.append([]) }
            rounds[round].append(item)
        }
        return rounds
    }

    /// The update of several live sessions' rows, each as ``rowUpdate(id:tenant:summary:status:endedAt:now:engineState:)``
    /// updates one, from one array per column; it returns the ids of the rows it changed.
    func batchUpdate(_ batch: [SessionCheckpoint], now: Int64) -> PostgresStatement {
        var columns = PostgresColumns(2 + Self.summaryColumnTypes.count)
        for item in batch {
            columns.append([.string(item.id.description), .string(item.tenant)] + Self.summaryColumns(item.summary))
        }
        return PostgresStatement(
            Self.batchUpdateSQL,
            [.int(now), .string(node)] + columns.arrays + [.byteaArray(batch.map(\.engineState))])
    }

    /// Each session is found by its key from the arrays, locked, then updated where it lies (its `ctid`, which the
    /// lock keeps). The arrays drive the plan (`LATERAL`): a join of the arrays with the table could start from
    /// the live sessions instead, and did, when the statistics last saw few of them live.
    private static let batchUpdateSQL: String = {
        let columns: [(name: String, type: String)] =
            [("id", "text"), ("tenant", "text")] + summaryColumnTypes + [("engine_state", "bytea")]
        return """
            UPDATE sessions AS s SET ended_at = NULL, updated_at = $1,
                \(summaryColumnTypes.map { "\($0.name) = u.\($0.name)" }.joined(separator: ", ")),
                engine_state = coalesce(u.engine_state, s.engine_state),
                checkpoint_t = CASE WHEN u.engine_state IS NULL THEN s.checkpoint_t ELSE u.last_t END
            FROM \(PostgresColumns.unnest(columns, from: 3)) AS u (\(columns.map(\.name).joined(separator: ", "))),
                LATERAL (
                    SELECT ctid FROM sessions
                    WHERE id = u.id AND \(liveCondition(tenant: "u.tenant", holder: "$2"))
                    FOR NO KEY UPDATE
                ) AS held
            WHERE s.ctid = held.ctid
            RETURNING s.id
            """
    }()

    /// Ends a live session with its final summary, in one transaction.
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    ///   - summary: The final summary.
    ///   - status: `finished` or `abandoned`.
    ///   - endedAt: When it ended, Unix milliseconds.
    /// - Throws: ``SessionStoreError/invalidEndStatus(_:)``; ``SessionStoreError/notFound``;
    ///   ``SessionStoreError/notLive(_:)``; database errors.
    public func finish(
        id: SessionID, tenant: String, summary: SessionSummary, status: SessionStatus, endedAt: Int64
    ) throws(SessionStoreError) {
        guard status != .live else { throw .invalidEndStatus(status) }
        try update(id: id, tenant: tenant, summary: summary, status: status, endedAt: endedAt)
    }

    /// Renders the summaries of ended sessions that have none at this store's version, in id order, in one
    /// transaction of three round trips (``render(_:with:in:)``): the sessions, locked (`FOR UPDATE SKIP LOCKED`, so
    /// nodes rendering at once share the work); their reps; the renderings, written from arrays with `COMMIT`.
    /// - Parameters:
    ///   - after: The id to continue after (nil: from the start).
    ///   - limit: The most sessions to render.
    /// - Returns: How many were rendered, and the id to continue after (nil when the pass is complete).
    /// - Throws: ``SessionStoreError/corruptRecord(id:)``; database errors.
    public func renderSummaries(
        after: SessionID?, limit: Int
    ) throws(SessionStoreError) -> (rendered: Int, next: SessionID?) {
        guard let rendering, limit > 0 else { return (0, nil) }
        let db = try database()
        let select = PostgresStatement(
            """
            SELECT \(SessionRows.sessionColumns) FROM sessions
            WHERE id > $1 AND status <> 'live' AND rendered_version IS DISTINCT FROM $2
            ORDER BY id LIMIT \(limit) FOR UPDATE SKIP LOCKED
            """, [.string(after?.description ?? ""), .int(rendering.version)])
        let rendered = try db.pipelinedTransaction { (transaction) throws(SessionStoreError) -> [SessionID] in
            try render(select, with: rendering, in: &transaction)
        }
        return (rendered.count, rendered.count < limit ? nil : rendered.last)
    }

    /// Renders the summaries of the ended sessions `select` reads (``SessionRows/sessionColumns``), in the caller's
    /// transaction: their rows, then their reps, each a round trip; the renderings go with the next pipeline (or the
    /// `COMMIT`).
    /// - Returns: The sessions rendered, in the order `select` read them.
    private func render(
        _ select: PostgresStatement, with rendering: SummaryRendering,
        in transaction: inout PostgresPipelinedTransaction
    ) throws(SessionStoreError) -> [SessionID] {
        let rows = try transaction.query(select.sql, select.parameters)
        var sessions: [StoredSession] = []
        sessions.reserveCapacity(rows.count)
        for row in rows.rows { sessions.append(try SessionRows.session(from: row)) }
        guard !sessions.isEmpty else { return [] }
        let ids = PostgresSessionReads.idArray(sessions.map(\.id))
        try PostgresSessionReads.readReps(
            transaction.query(PostgresSessionReads.repsOfSessions, [ids]), into: &sessions)
        transaction.add([
            PostgresStatement(
                """
                UPDATE sessions AS s SET rendered_version = $1, rendered = u.rendered
                FROM unnest($2::text[], $3::bytea[]) AS u (id, rendered) WHERE s.id = u.id
                """, [.int(rendering.version), ids, .byteaArray(sessions.map { rendering.render($0.summary) })])
        ])
        return sessions.map(\.id)
    }

    /// Deletes a session; its reps and series go with it (`ON DELETE CASCADE`).
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    /// - Returns: Whether there was such a session.
    /// - Throws: Database errors.
    public func delete(id: SessionID, tenant: String) throws(SessionStoreError) -> Bool {
        let db = try database()
        // One statement: the row is deleted unless live, and whether it was there at all comes back beside.
        let rows = try db.query(
            """
            WITH deleted AS (DELETE FROM sessions WHERE id = $1 AND tenant = $2 AND status <> 'live' RETURNING id)
            SELECT (SELECT count(*) FROM deleted), (SELECT count(*) FROM sessions WHERE id = $1 AND tenant = $2)
            """, [.string(id.description), .string(tenant)])
        guard let row = rows.first else { return false }
        if row.int(0) > 0 {
            written[id] = nil
            return true
        }
        if row.int(1) > 0 { throw .stillLive }
        return false
    }

    /// Marks `abandoned` every live session last written before `cutoff`; its end time becomes that last write's.
    /// - Parameter cutoff: Unix milliseconds (store clock).
    /// - Returns: How many sessions were abandoned.
    /// - Throws: Database errors.
    public func abandonLiveSessions(
        updatedBefore cutoff: Int64, except holders: Set<String>
    ) throws(SessionStoreError) -> Int {
        let db = try database()
        return try db.pipelinedTransaction { (transaction) throws(SessionStoreError) -> Int in
            let abandoned = try transaction.query(
                """
                UPDATE sessions SET status = 'abandoned', ended_at = updated_at, updated_at = $2
                WHERE status = 'live' AND updated_at < $1
                    AND (holder IS NULL OR NOT holder = ANY (string_to_array($3, ',')))
                RETURNING id
                """, [.int(cutoff), .int(clock()), .string(holders.sorted().joined(separator: ","))])
            guard abandoned.count > 0 else { return 0 }
            written.removeAll()
            try renderAbandoned(abandoned, in: &transaction)
            return abandoned.count
        }
    }

    /// Marks one live session `abandoned`; its end time becomes its last write's, its engine state is let go.
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    /// - Returns: Whether a live session was abandoned.
    /// - Throws: Database errors.
    public func abandon(id: SessionID, tenant: String) throws(SessionStoreError) -> Bool {
        let db = try database()
        written[id] = nil
        return try db.pipelinedTransaction { (transaction) throws(SessionStoreError) -> Bool in
            let abandoned = try transaction.query(
                """
                UPDATE sessions SET status = 'abandoned', ended_at = updated_at, updated_at = $3, engine_state = NULL,
                    checkpoint_t = NULL
                WHERE id = $1 AND \(Self.liveCondition(tenant: "$2"))
                RETURNING id
                """, [.string(id.description), .string(tenant), .int(clock())])
            try renderAbandoned(abandoned, in: &transaction)
            return abandoned.count > 0
        }
    }

    /// Renders the summaries of sessions just abandoned (rows of their ids), which keep their last checkpoint's, in
    /// the caller's transaction.
    private func renderAbandoned(
        _ abandoned: PostgresRows, in transaction: inout PostgresPipelinedTransaction
    ) throws(SessionStoreError) {
        guard let rendering, abandoned.count > 0 else { return }
        let ids = PostgresSessionReads.idArray(abandoned.rows.compactMap { $0.sessionID(0) })
        _ = try render(
            PostgresStatement("SELECT \(SessionRows.sessionColumns) FROM sessions WHERE id = ANY ($1::text[])", [ids]),
            with: rendering, in: &transaction)
    }

    /// Makes this store's node the holder of a live session that `holder` holds now.
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    ///   - holder: The holder the caller saw, nil for none.
    /// - Returns: Whether this node holds it now.
    /// - Throws: Database errors.
    public func claim(id: SessionID, tenant: String, from holder: String?) throws(SessionStoreError) -> Bool {
        let db = try database()
        written[id] = nil
        return try db.query(
            """
            UPDATE sessions SET holder = $3
            WHERE id = $1 AND \(Self.liveCondition(tenant: "$2", holder: "$4"))
            """, [.string(id.description), .string(tenant), .string(node), .string(holder)]
        ).changed > 0
    }

    /// Lets go of a live session this store's node holds.
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    /// - Returns: Whether this node held it.
    /// - Throws: Database errors.
    public func release(id: SessionID, tenant: String) throws(SessionStoreError) -> Bool {
        let db = try database()
        written[id] = nil
        return try db.query(
            "UPDATE sessions SET holder = NULL WHERE id = $1 AND \(Self.liveCondition(tenant: "$2", holder: "$3"))",
            [.string(id.description), .string(tenant), .string(node)]
        ).changed > 0
    }

    /// Records whether a client is attached to a live session this store's node holds.
    /// - Parameters:
    ///   - connected: Whether a client is attached.
    ///   - id: The session.
    ///   - tenant: Its tenant.
    /// - Throws: Database errors.
    public func setConnected(_ connected: Bool, id: SessionID, tenant: String) throws(SessionStoreError) {
        try database().query(
            "UPDATE sessions SET connected = $3 WHERE id = $1 AND \(Self.liveCondition(tenant: "$2", holder: "$4"))",
            [.string(id.description), .string(tenant), .string(connected ? "true" : "false"), .string(node)])
    }

    /// The nodes alive: registered (``PostgresNodeBus``), heartbeating since `cutoff`, and holding their advisory
    /// lock, which their database connection takes with it when the process dies. This store's node counts as alive
    /// even without a bus (a store used alone).
    /// - Parameter cutoff: Unix milliseconds (store clock).
    /// - Returns: The nodes' ids.
    /// - Throws: Database errors.
    public func liveNodes(heartbeatSince cutoff: Int64) throws(SessionStoreError) -> Set<String> {
        let rows = try database().query(
            """
            SELECT n.id FROM nodes n
            WHERE n.heartbeat_at >= $1 AND EXISTS (
                SELECT 1 FROM pg_locks l
                WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
                    AND l.classid = (n.lock_key >> 32)::oid AND l.objid = (n.lock_key & 4294967295)::oid)
            """, [.int(cutoff)])
        var nodes: Set<String> = [node]
        for row in rows.rows { nodes.insert(row.string(0)) }
        return nodes
    }

    /// Updates a live session in one transaction (see ``SQLiteSessionStore``: checkpoints append, the final write is
    /// whole), in two round trips: `BEGIN` with the row; then its reps and series with `COMMIT`.
    private func update(
        id: SessionID, tenant: String, summary: SessionSummary, status: SessionStatus, endedAt: Int64?
    ) throws(SessionStoreError) {
        let db = try database()
        let now = clock()
        let after = status == .live ? written[id] : nil
        written[id] = nil
        try db.pipelinedTransaction { (transaction) throws(SessionStoreError) in
            let row = rowUpdate(id: id, tenant: tenant, summary: summary, status: status, endedAt: endedAt, now: now)
            guard try transaction.query(row.sql, row.parameters).changed > 0 else {
                throw try whyNotUpdated(id: id, tenant: tenant, in: &transaction)
            }
            var details = PostgresDetailBatch()
            details.add(id, summary, DetailWrites(summary, after: after))
            transaction.add(details.statements)
        }
        if status == .live { written[id] = WrittenDetails(summary) }
    }

    /// The update of a live session's row, which changes it only if it is live and this node holds it (so a late
    /// checkpoint never overwrites a final summary, and a node that lost the session, taken over, cannot overwrite
    /// its new holder's). A live session keeps its engine state unless a new one comes; an ended one lets it go, and
    /// keeps its summary rendered (``SummaryRendering``).
    private func rowUpdate(
        id: SessionID, tenant: String, summary: SessionSummary, status: SessionStatus, endedAt: Int64?, now: Int64,
        engineState: [UInt8]? = nil
    ) -> PostgresStatement {
        var parameters: [PostgresValue] = [
            .string(id.description), .string(tenant), .string(status.rawValue), .int(endedAt), .int(now),
        ]
        parameters += Self.summaryColumns(summary)
        let rendered = rendering?.rendered(summary, status: status)
        parameters += [
            .string(node), .bytes(engineState), .int(rendered == nil ? nil : rendering?.version), .bytes(rendered),
        ]
        return PostgresStatement(
            """
            UPDATE sessions SET status = $3, ended_at = $4, updated_at = $5, exercise = $6, side = $7,
                first_t = $8, last_t = $9, frames = $10, visible_frames = $11, rep_count = $12,
                rejected_count = $13, best = $14, baseline = $15, fault_counts = $16, exercise_version = $17,
                prescribed_target = $18, prescribed_rest = $19, prescribed_enter = $20, prescribed_exit = $21,
                prescribed_hold_seconds = $22, prescribed_reps = $23, prescribed_sets = $24, per_side = $25,
                mean_peak = $26, holds = $27, goal_sets_done = $28,
                engine_state = CASE WHEN $3 <> 'live' THEN NULL WHEN $30::bytea IS NULL THEN engine_state
                    ELSE $30::bytea END,
                checkpoint_t = CASE WHEN $3 <> 'live' THEN NULL WHEN $30::bytea IS NULL THEN checkpoint_t
                    ELSE $9 END,
                rendered_version = $31, rendered = $32
            WHERE id = $1 AND \(Self.liveCondition(tenant: "$2", holder: "$29"))
            """, parameters)
    }

    /// The SQL condition that a session's row is live, of `tenant` and, given a `holder`, held by it (both SQL
    /// expressions), for statements that find the session by its id: written as one `IS NOT DISTINCT FROM`, which no
    /// index serves, so that every plan finds the row by its primary key and checks the rest on it. Written as
    /// `tenant = … AND status = 'live'`, the conditions match the indexes by tenant and status and the partial index
    /// of live sessions, and on statistics that saw few sessions live (a table analysed after a quiet night) a plan
    /// priced a scan of every live session's entry of the tenant as cheap as the key, for each checkpoint. A null
    /// holder is not this node's: `holder` is never null where the node's id is passed; a claim passes the holder it
    /// saw, null for none, which matches a row without one.
    static func liveCondition(tenant: String, holder: String? = nil) -> String {
        guard let holder else { return "(tenant, status) IS NOT DISTINCT FROM (\(tenant), 'live')" }
        return "(tenant, status, holder) IS NOT DISTINCT FROM (\(tenant), 'live', \(holder))"
    }

    /// Why a row update changed nothing: ``SessionStoreError/notFound``, ``SessionStoreError/notLive(_:)``, or
    /// ``SessionStoreError/heldElsewhere``.
    private func whyNotUpdated(
        id: SessionID, tenant: String, in transaction: inout PostgresPipelinedTransaction
    ) throws(SessionStoreError) -> SessionStoreError {
        let row = try transaction.query(
            "SELECT status FROM sessions WHERE id = $1 AND tenant = $2", [.string(id.description), .string(tenant)]
        ).first
        guard let row else { return .notFound }
        guard let current = SessionStatus(rawValue: row.string(0)) else { throw .corruptRecord(id: id.description) }
        return current == .live ? .heldElsewhere : .notLive(current)
    }

    /// exercise, side, first_t, last_t, frames, visible_frames, rep_count, rejected_count, best, baseline,
    /// fault_counts, exercise_version, the seven prescribed_ columns (target, rest, enter, exit, hold_seconds, reps,
    /// sets), per_side, mean_peak, holds and goal_sets_done: 23 consecutive parameters.
    private static func summaryColumns(_ summary: SessionSummary) -> [PostgresValue] {
        let prescription = summary.prescription
        return [
            .string(summary.exercise), .string(summary.side?.rawValue), .double(summary.firstTimestamp),
            .double(summary.lastTimestamp), .int(summary.frames), .int(summary.visibleFrames),
            .int(summary.repCount), .int(summary.rejectedCount), .double(summary.best), .double(summary.baseline),
            .string(SessionRecordCoding.encode(summary.faultCounts)), .int(summary.exerciseVersion),
            .double(prescription.target), .double(prescription.rest), .double(prescription.enter),
            .double(prescription.exit), .double(prescription.holdSeconds), .int(prescription.reps),
            .int(prescription.sets), .string(SessionRecordCoding.encode(summary.perSide)),
            .double(SessionRecordCoding.meanCleanPeak(summary.reps)),
            .string(SessionRecordCoding.encode(summary.holds)), .int(summary.goal?.setsDone),
        ]
    }

    /// The columns of ``summaryColumns(_:)``, in its order, with their types.
    private static let summaryColumnTypes: [(name: String, type: String)] = [
        ("exercise", "text"), ("side", "text"), ("first_t", "float8"), ("last_t", "float8"), ("frames", "int8"),
        ("visible_frames", "int8"), ("rep_count", "int8"), ("rejected_count", "int8"), ("best", "float8"),
        ("baseline", "float8"), ("fault_counts", "text"), ("exercise_version", "int8"),
        ("prescribed_target", "float8"), ("prescribed_rest", "float8"), ("prescribed_enter", "float8"),
        ("prescribed_exit", "float8"), ("prescribed_hold_seconds", "float8"), ("prescribed_reps", "int8"),
        ("prescribed_sets", "int8"), ("per_side", "text"), ("mean_peak", "float8"), ("holds", "text"),
        ("goal_sets_done", "int8"),
    ]
}
