import CSQLite
public import MotionCore

extension SQLiteSessionStore {
    /// Writes this node's probe row in a transaction of its own, with a page of padding as large as a short
    /// session's create: fails as that write would on a full disk, a read-only file, or a lock held past the busy
    /// timeout.
    /// - Throws: Database errors.
    public func probe() throws(SessionStoreError) {
        let db = try database()
        let now = clock()
        try db.transaction { () throws(SessionStoreError) in
            try db.withStatement(
                """
                INSERT INTO store_probe (node, written_at, padding) VALUES (?1, ?2, zeroblob(?3))
                ON CONFLICT (node) DO UPDATE SET written_at = excluded.written_at, padding = excluded.padding
                """
            ) { statement throws(SessionStoreError) in
                try statement.bind(node, at: 1)
                try statement.bind(now, at: 2)
                try statement.bind(Self.probePaddingBytes, at: 3)
                _ = try statement.step()
            }
        }
    }

    /// The bytes of padding the probe writes: about what a short session's create adds to the database.
    static let probePaddingBytes = 4096

    /// Stores a new session: its row, reps and series, in one transaction.
    /// - Parameter session: The session.
    /// - Throws: ``SessionStoreError/alreadyExists`` if the id is taken; database errors.
    public func create(_ session: StoredSession) throws(SessionStoreError) {
        if let refusal = try create([session])[session.id] { throw refusal }
    }

    /// Stores several new sessions in one transaction: their rows, reps and series share one commit. A session whose
    /// id is taken is not stored (its insert fails alone) and the others are.
    /// - Parameter sessions: The sessions.
    /// - Returns: ``SessionStoreError/alreadyExists`` for the ids that were taken (by a stored session, or by an
    ///   earlier session of the batch, which was stored).
    /// - Throws: Database errors; then none was stored.
    public func create(_ sessions: [StoredSession]) throws(SessionStoreError) -> [SessionID: SessionStoreError] {
        guard !sessions.isEmpty else { return [:] }
        let db = try database()
        let now = clock()
        for session in sessions { written[session.id] = nil }
        var stored: [SessionID: WrittenDetails] = [:]
        let refused = try db.transaction { () throws(SessionStoreError) -> [SessionID: SessionStoreError] in
            var refused: [SessionID: SessionStoreError] = [:]
            for session in sessions {
                do throws(SessionStoreError) {
                    let details = try insert(session, now: now, in: db)
                    if session.status == .live { stored[session.id] = details }
                } catch .alreadyExists {
                    refused[session.id] = .alreadyExists
                }
            }
            return refused
        }
        written.merge(stored) { $1 }
        return refused
    }

    /// Inserts a new session's row, reps and series, in the caller's transaction.
    /// - Returns: What was written of its reps and series.
    /// - Throws: ``SessionStoreError/alreadyExists`` if the id is taken (then nothing was written); database errors.
    private func insert(
        _ session: StoredSession, now: Int64, in db: SQLiteConnection
    ) throws(SessionStoreError) -> WrittenDetails {
        do throws(SessionStoreError) {
            try db.withStatement(
                """
                INSERT INTO sessions (id, tenant, subject, status, started_at, ended_at, updated_at, exercise, side,
                    first_t, last_t, frames, visible_frames, rep_count, rejected_count, best, baseline,
                    fault_counts, exercise_version, prescribed_target, prescribed_rest, prescribed_enter,
                    prescribed_exit, prescribed_hold_seconds, prescribed_reps, prescribed_sets, per_side, mean_peak)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20,
                    ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28)
                """
            ) { insert throws(SessionStoreError) in
                try insert.bind(session.id.description, at: 1)
                try insert.bind(session.tenant, at: 2)
                try insert.bind(session.subject, at: 3)
                try insert.bind(session.status.rawValue, at: 4)
                try insert.bind(session.startedAt, at: 5)
                try insert.bind(session.endedAt, at: 6)
                try insert.bind(now, at: 7)
                try bindSummaryColumns(session.summary, to: insert, from: 8)
                try insert.step()
            }
        } catch .database(let code, _) where code == csqlite_constraint_primarykey() {
            throw .alreadyExists
        }
        try writeRendering(of: session.id, session.summary, status: session.status, in: db)
        if tracksHolders {
            try db.withStatement(
                "UPDATE sessions SET holder = ?2, connected = CASE WHEN status = 'live' THEN 1 END WHERE id = ?1"
            ) { update throws(SessionStoreError) in
                try update.bind(session.id.description, at: 1)
                try update.bind(node, at: 2)
                try update.step()
            }
        }
        if !session.summary.holds.isEmpty {
            // Apart, as the resumption: a session without holds is written the same at every schema version.
            try db.withStatement("UPDATE sessions SET holds = ?2 WHERE id = ?1") { update throws(SessionStoreError) in
                try update.bind(session.id.description, at: 1)
                try update.bind(SessionRecordCoding.encode(session.summary.holds), at: 2)
                try update.step()
            }
        }
        if countsSets, let setsDone = session.summary.goal?.setsDone {
            // Apart, as the holders: the databases tests build at older versions have no such column.
            try db.withStatement("UPDATE sessions SET goal_sets_done = ?2 WHERE id = ?1") {
                update throws(SessionStoreError) in
                try update.bind(session.id.description, at: 1)
                try update.bind(setsDone, at: 2)
                try update.step()
            }
        }
        if session.programme != nil || session.demo {
            try db.withStatement(
                """
                UPDATE sessions SET programme_id = ?2, programme_version = ?3, programme_item = ?4, demo = ?5
                WHERE id = ?1
                """
            ) { update throws(SessionStoreError) in
                try update.bind(session.id.description, at: 1)
                try update.bind(session.programme?.id, at: 2)
                try update.bind(session.programme?.version, at: 3)
                try update.bind(session.programme?.item, at: 4)
                try update.bind(session.demo ? 1 : 0, at: 5)
                try update.step()
            }
        }
        if let resumption = session.resumption {
            try db.withStatement("UPDATE sessions SET resume_digest = ?2, start_request = ?3 WHERE id = ?1") {
                update throws(SessionStoreError) in
                try update.bind(session.id.description, at: 1)
                try update.bind(blob: resumption.tokenDigest, at: 2)
                try update.bind(resumption.start, at: 3)
                try update.step()
            }
        }
        return try writeDetails(of: session.id, with: session.summary, DetailWrites(new: session.summary), in: db)
    }

    /// Replaces a live session's summary, reps and series, in one transaction.
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    ///   - summary: The summary so far.
    /// - Throws: ``SessionStoreError/notFound``; ``SessionStoreError/notLive(_:)``; database errors.
    public func checkpoint(id: SessionID, tenant: String, summary: SessionSummary) throws(SessionStoreError) {
        try update(id: id, tenant: tenant, summary: summary, status: .live, endedAt: nil)
    }

    /// Checkpoints several live sessions in one transaction: their rows, reps and series share one commit (and the
    /// pages they share are written once).
    /// - Parameter batch: The checkpoints.
    /// - Returns: The checkpoints not applied (unknown or ended sessions), by session.
    /// - Throws: Database errors; then none was applied.
    public func checkpoint(_ batch: [SessionCheckpoint]) throws(SessionStoreError) -> [SessionID: SessionStoreError] {
        guard !batch.isEmpty else { return [:] }
        let db = try database()
        let now = clock()
        // What this batch wrote, by session (nil: nothing, it was refused), read before `written` by a later
        // checkpoint of the same session in the batch.
        var batchWritten: [SessionID: WrittenDetails?] = [:]
        let refused: [SessionID: SessionStoreError]
        do {
            refused = try db.transaction { () throws(SessionStoreError) -> [SessionID: SessionStoreError] in
                var refused: [SessionID: SessionStoreError] = [:]
                for item in batch {
                    do throws(SessionStoreError) {
                        batchWritten[item.id] = try updateRow(
                            id: item.id, tenant: item.tenant, summary: item.summary, status: .live, endedAt: nil,
                            now: now, after: batchWritten[item.id] ?? written[item.id], in: db)
                        if let state = item.engineState {
                            try saveEngineState(state, at: item.summary.lastTimestamp, of: item.id, in: db)
                        }
                        refused[item.id] = nil
                    } catch .notFound {
                        (batchWritten[item.id], refused[item.id]) = (.some(nil), .notFound)
                    } catch .notLive(let status) {
                        (batchWritten[item.id], refused[item.id]) = (.some(nil), .notLive(status))
                    } catch .heldElsewhere {
                        (batchWritten[item.id], refused[item.id]) = (.some(nil), .heldElsewhere)
                    }
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

    /// Deletes a session; its reps and series go with it (`ON DELETE CASCADE`).
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    /// - Returns: Whether there was such a session.
    /// - Throws: Database errors.
    public func delete(id: SessionID, tenant: String) throws(SessionStoreError) -> Bool {
        let db = try database()
        let deleted = try db.transaction { () throws(SessionStoreError) -> Bool in
            let deleted = try db.withStatement(
                "DELETE FROM sessions WHERE id = ?1 AND tenant = ?2 AND status <> 'live'"
            ) { delete throws(SessionStoreError) in
                try delete.bind(id.description, at: 1)
                try delete.bind(tenant, at: 2)
                _ = try delete.step()
                return db.changes > 0
            }
            if deleted { return true }
            let live = try db.withStatement("SELECT 1 FROM sessions WHERE id = ?1 AND tenant = ?2") {
                find throws(SessionStoreError) in
                try find.bind(id.description, at: 1)
                try find.bind(tenant, at: 2)
                return try find.step()
            }
            if live { throw .stillLive }
            return false
        }
        if deleted { written[id] = nil }
        return deleted
    }

    /// Marks `abandoned` every live session last written before `cutoff`; its end time becomes that last write's.
    /// - Parameter cutoff: Unix milliseconds (store clock).
    /// - Returns: How many sessions were abandoned.
    /// - Throws: Database errors.
    public func abandonLiveSessions(
        updatedBefore cutoff: Int64, except holders: Set<String>
    ) throws(SessionStoreError) -> Int {
        let db = try database()
        let now = clock()
        let kept = holders.sorted()
        let placeholders = (0..<kept.count).map { "?\($0 + 3)" }.joined(separator: ", ")
        let exception = kept.isEmpty ? "" : " AND (holder IS NULL OR holder NOT IN (\(placeholders)))"
        return try db.transaction { () throws(SessionStoreError) -> Int in
            let abandoned = try db.withStatement(
                """
                UPDATE sessions SET status = 'abandoned', ended_at = updated_at, updated_at = ?2
                WHERE status = 'live' AND updated_at < ?1\(exception)
                RETURNING id
                """
            ) { abandon throws(SessionStoreError) -> [SessionID] in
                try abandon.bind(cutoff, at: 1)
                try abandon.bind(now, at: 2)
                for (index, holder) in kept.enumerated() { try abandon.bind(holder, at: Int32(index + 3)) }
                return try Self.ids(returnedBy: abandon)
            }
            // What was written of the abandoned sessions is forgotten with the rest: a live session still
            // checkpointing here then rewrites its details once.
            if !abandoned.isEmpty { written.removeAll() }
            try renderAbandoned(abandoned, in: db)
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
        let now = clock()
        written[id] = nil
        return try db.transaction { () throws(SessionStoreError) -> Bool in
            let abandoned = try db.withStatement(
                """
                UPDATE sessions SET status = 'abandoned', ended_at = updated_at, updated_at = ?3, engine_state = NULL,
                    checkpoint_t = NULL
                WHERE id = ?1 AND tenant = ?2 AND status = 'live'
                RETURNING id
                """
            ) { abandon throws(SessionStoreError) -> [SessionID] in
                try abandon.bind(id.description, at: 1)
                try abandon.bind(tenant, at: 2)
                try abandon.bind(now, at: 3)
                return try Self.ids(returnedBy: abandon)
            }
            try renderAbandoned(abandoned, in: db)
            return !abandoned.isEmpty
        }
    }

    /// The session ids a statement returns, one a row in its first column.
    private static func ids(returnedBy statement: SQLiteStatement) throws(SessionStoreError) -> [SessionID] {
        var ids: [SessionID] = []
        while try statement.step() {
            guard let id = statement.sessionID(0) else { throw .corruptRecord(id: statement.string(0)) }
            ids.append(id)
        }
        return ids
    }

    /// Renders the summaries of sessions just abandoned, which keep their last checkpoint's, in the caller's
    /// transaction.
    private func renderAbandoned(_ ids: [SessionID], in db: SQLiteConnection) throws(SessionStoreError) {
        guard rendering != nil, !ids.isEmpty else { return }
        var sessions: [StoredSession] = []
        for id in ids {
            try db.withStatement("SELECT \(SessionRows.sessionColumns) FROM sessions WHERE id = ?1") {
                select throws(SessionStoreError) in
                try select.bind(id.description, at: 1)
                if try select.step() { sessions.append(try SessionRows.session(from: select)) }
            }
        }
        try render(&sessions, in: db)
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
        return try db.withStatement(
            "UPDATE sessions SET holder = ?3 WHERE id = ?1 AND tenant = ?2 AND status = 'live' AND holder IS ?4"
        ) { claim throws(SessionStoreError) -> Bool in
            try claim.bind(id.description, at: 1)
            try claim.bind(tenant, at: 2)
            try claim.bind(node, at: 3)
            try claim.bind(holder, at: 4)
            try claim.step()
            return db.changes > 0
        }
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
        return try db.withStatement(
            "UPDATE sessions SET holder = NULL WHERE id = ?1 AND tenant = ?2 AND status = 'live' AND holder = ?3"
        ) { release throws(SessionStoreError) -> Bool in
            try release.bind(id.description, at: 1)
            try release.bind(tenant, at: 2)
            try release.bind(node, at: 3)
            try release.step()
            return db.changes > 0
        }
    }

    /// Records whether a client is attached to a live session this store's node holds.
    /// - Parameters:
    ///   - connected: Whether a client is attached.
    ///   - id: The session.
    ///   - tenant: Its tenant.
    /// - Throws: Database errors.
    public func setConnected(_ connected: Bool, id: SessionID, tenant: String) throws(SessionStoreError) {
        let db = try database()
        try db.withStatement(
            "UPDATE sessions SET connected = ?3 WHERE id = ?1 AND tenant = ?2 AND status = 'live' AND holder = ?4"
        ) { update throws(SessionStoreError) in
            try update.bind(id.description, at: 1)
            try update.bind(tenant, at: 2)
            try update.bind(connected ? 1 : 0, at: 3)
            try update.bind(node, at: 4)
            try update.step()
        }
    }

    /// The nodes alive: an embedded database is written by one process, so only this store's node.
    /// - Parameter cutoff: Unused: this process is alive.
    /// - Returns: This store's node.
    public func liveNodes(heartbeatSince cutoff: Int64) -> Set<String> { [node] }

    /// Updates a live session in one transaction. A checkpoint writes only the reps and samples that came since the
    /// last write; the final write (`finished`, `abandoned`) is whole, so an ended session's details are exactly
    /// its final summary's.
    private func update(
        id: SessionID, tenant: String, summary: SessionSummary, status: SessionStatus, endedAt: Int64?
    ) throws(SessionStoreError) {
        let db = try database()
        let now = clock()
        let after = status == .live ? written[id] : nil
        written[id] = nil
        let details = try db.transaction { () throws(SessionStoreError) -> WrittenDetails in
            try updateRow(
                id: id, tenant: tenant, summary: summary, status: status, endedAt: endedAt, now: now, after: after,
                in: db)
        }
        if status == .live { written[id] = details }
    }

    /// Keeps a live session's engine state and the timestamp it covers, inside the caller's transaction.
    private func saveEngineState(
        _ state: [UInt8], at t: Double?, of id: SessionID, in db: SQLiteConnection
    ) throws(SessionStoreError) {
        try db.withStatement("UPDATE sessions SET engine_state = ?2, checkpoint_t = ?3 WHERE id = ?1") {
            update throws(SessionStoreError) in
            try update.bind(id.description, at: 1)
            try update.bind(blob: state, at: 2)
            try update.bind(t, at: 3)
            try update.step()
        }
    }

    /// Updates a live session's row, reps and series inside the caller's transaction.
    /// - Parameter after: What earlier writes left of the session's reps and series (nil: unknown, write them all).
    /// - Returns: What is written of them now.
    /// - Throws: ``SessionStoreError/notFound`` or ``SessionStoreError/notLive(_:)`` having changed nothing; database
    ///   errors.
    private func updateRow(
        id: SessionID, tenant: String, summary: SessionSummary, status: SessionStatus, endedAt: Int64?, now: Int64,
        after: WrittenDetails?, in db: SQLiteConnection
    ) throws(SessionStoreError) -> WrittenDetails {
        // Only a live session changes, so a late checkpoint never overwrites a final summary.
        let changed = try db.withStatement(
            """
            UPDATE sessions SET status = ?3, ended_at = ?4, updated_at = ?5, exercise = ?6, side = ?7,
                first_t = ?8, last_t = ?9, frames = ?10, visible_frames = ?11, rep_count = ?12,
                rejected_count = ?13, best = ?14, baseline = ?15, fault_counts = ?16, exercise_version = ?17,
                prescribed_target = ?18, prescribed_rest = ?19, prescribed_enter = ?20, prescribed_exit = ?21,
                prescribed_hold_seconds = ?22, prescribed_reps = ?23, prescribed_sets = ?24, per_side = ?25,
                mean_peak = ?26, holds = ?28, goal_sets_done = ?29,
                engine_state = CASE WHEN ?3 = 'live' THEN engine_state END,
                checkpoint_t = CASE WHEN ?3 = 'live' THEN checkpoint_t END
            WHERE id = ?1 AND tenant = ?2 AND status = 'live' AND holder = ?27
            """
        ) { update throws(SessionStoreError) in
            try update.bind(id.description, at: 1)
            try update.bind(tenant, at: 2)
            try update.bind(status.rawValue, at: 3)
            try update.bind(endedAt, at: 4)
            try update.bind(now, at: 5)
            try bindSummaryColumns(summary, to: update, from: 6)
            try update.bind(node, at: 27)
            try update.bind(SessionRecordCoding.encode(summary.holds), at: 28)
            try update.bind(summary.goal?.setsDone, at: 29)
            try update.step()
            return db.changes > 0
        }
        guard changed else {
            guard let current = try self.status(of: id, tenant: tenant, in: db) else { throw .notFound }
            throw current == .live ? .heldElsewhere : .notLive(current)
        }
        try writeRendering(of: id, summary, status: status, in: db)
        return try writeDetails(of: id, with: summary, DetailWrites(summary, after: after), in: db)
    }

    /// Renders the summaries of ended sessions that have none at this store's version, in id order, in one
    /// transaction.
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
        return try db.transaction { () throws(SessionStoreError) -> (rendered: Int, next: SessionID?) in
            var sessions = try db.withStatement(
                """
                SELECT \(SessionRows.sessionColumns) FROM sessions
                WHERE id > ?1 AND status <> 'live' AND rendered_version IS NOT ?2 ORDER BY id LIMIT ?3
                """
            ) { select throws(SessionStoreError) -> [StoredSession] in
                try select.bind(after?.description ?? "", at: 1)
                try select.bind(rendering.version, at: 2)
                try select.bind(limit, at: 3)
                var sessions: [StoredSession] = []
                while try select.step() { sessions.append(try SessionRows.session(from: select)) }
                return sessions
            }
            try render(&sessions, in: db)
            return (sessions.count, sessions.count < limit ? nil : sessions.last?.id)
        }
    }

    /// Reads the reps of ended sessions read without them and keeps their summaries rendered, inside the caller's
    /// transaction.
    private func render(_ sessions: inout [StoredSession], in db: SQLiteConnection) throws(SessionStoreError) {
        guard !sessions.isEmpty else { return }
        try readReps(into: &sessions, ids: Self.jsonArray(of: sessions.map(\.id)), in: db)
        for session in sessions {
            try writeRendering(of: session.id, session.summary, status: session.status, in: db)
        }
    }

    /// Keeps an ended session's summary rendered (``SummaryRendering``) in its row, inside the caller's transaction.
    /// A live session has none: its row was created without one, and only a final write ends it.
    private func writeRendering(
        of id: SessionID, _ summary: SessionSummary, status: SessionStatus, in db: SQLiteConnection
    ) throws(SessionStoreError) {
        guard let rendering, let rendered = rendering.rendered(summary, status: status) else { return }
        try db.withStatement("UPDATE sessions SET rendered_version = ?2, rendered = ?3 WHERE id = ?1") {
            update throws(SessionStoreError) in
            try update.bind(id.description, at: 1)
            try update.bind(rendering.version, at: 2)
            try update.bind(blob: rendered, at: 3)
            try update.step()
        }
    }

    private func status(
        of id: SessionID, tenant: String, in db: SQLiteConnection
    ) throws(SessionStoreError) -> SessionStatus? {
        try db.withStatement("SELECT status FROM sessions WHERE id = ?1 AND tenant = ?2") {
            select throws(SessionStoreError) in
            try select.bind(id.description, at: 1)
            try select.bind(tenant, at: 2)
            guard try select.step() else { return nil }
            guard let status = SessionStatus(rawValue: select.string(0)) else {
                throw .corruptRecord(id: id.description)
            }
            return status
        }
    }

    /// Binds exercise, side, first_t, last_t, frames, visible_frames, rep_count, rejected_count, best, baseline,
    /// fault_counts, exercise_version, the seven prescribed_ columns (target, rest, enter, exit, hold_seconds, reps,
    /// sets), per_side and mean_peak to 21 consecutive parameters.
    private func bindSummaryColumns(
        _ summary: SessionSummary, to statement: SQLiteStatement, from first: Int32
    ) throws(SessionStoreError) {
        try statement.bind(summary.exercise, at: first)
        try statement.bind(summary.side?.rawValue, at: first + 1)
        try statement.bind(summary.firstTimestamp, at: first + 2)
        try statement.bind(summary.lastTimestamp, at: first + 3)
        try statement.bind(summary.frames, at: first + 4)
        try statement.bind(summary.visibleFrames, at: first + 5)
        try statement.bind(summary.repCount, at: first + 6)
        try statement.bind(summary.rejectedCount, at: first + 7)
        try statement.bind(summary.best, at: first + 8)
        try statement.bind(summary.baseline, at: first + 9)
        try statement.bind(SessionRecordCoding.encode(summary.faultCounts), at: first + 10)
        try statement.bind(summary.exerciseVersion, at: first + 11)
        let prescription = summary.prescription
        try statement.bind(prescription.target, at: first + 12)
        try statement.bind(prescription.rest, at: first + 13)
        try statement.bind(prescription.enter, at: first + 14)
        try statement.bind(prescription.exit, at: first + 15)
        try statement.bind(prescription.holdSeconds, at: first + 16)
        try statement.bind(prescription.reps, at: first + 17)
        try statement.bind(prescription.sets, at: first + 18)
        try statement.bind(SessionRecordCoding.encode(summary.perSide), at: first + 19)
        try statement.bind(SessionRecordCoding.meanCleanPeak(summary.reps), at: first + 20)
    }

    /// Writes the session's reps and series inside the caller's transaction, as `writes` decided: everything for a
    /// new session; after that only what follows the written part when the summary continues it, all of it otherwise
    /// (a reset, a series that halved its resolution).
    /// - Returns: What is written of them now.
    private func writeDetails(
        of id: SessionID, with summary: SessionSummary, _ writes: DetailWrites, in db: SQLiteConnection
    ) throws(SessionStoreError) -> WrittenDetails {
        let key = id.description
        if writes.replacesReps {
            try db.withStatement("DELETE FROM reps WHERE session_id = ?1") { delete throws(SessionStoreError) in
                try delete.bind(key, at: 1)
                try delete.step()
            }
        }
        if !writes.newReps.isEmpty {
            try db.withStatement(
                """
                INSERT INTO reps (session_id, position, number, peak, trough, start_t, end_t, faults, time_to_peak,
                    side, motion_smoothness, motion_tremor, motion_rms, motion_covered)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
                """
            ) { insert throws(SessionStoreError) in
                for position in writes.newReps {
                    let rep = summary.reps[position]
                    insert.reset()
                    try insert.bind(key, at: 1)
                    try insert.bind(position, at: 2)
                    try insert.bind(rep.index, at: 3)
                    try insert.bind(rep.peak, at: 4)
                    try insert.bind(rep.trough, at: 5)
                    try insert.bind(rep.start, at: 6)
                    try insert.bind(rep.end, at: 7)
                    try insert.bind(SessionRecordCoding.encode(rep.faults), at: 8)
                    try insert.bind(rep.timeToPeak, at: 9)
                    try insert.bind(rep.side?.rawValue, at: 10)
                    try insert.bind(rep.motion?.smoothness, at: 11)
                    try insert.bind(rep.motion?.tremor, at: 12)
                    try insert.bind(rep.motion?.rms, at: 13)
                    try insert.bind(rep.motion?.covered, at: 14)
                    try insert.step()
                }
            }
        }
        try writeSeries(summary.series, writes.series, of: key, in: db)
        try writeSeries(summary.motion, writes.motion, of: key, in: db)
        return WrittenDetails(summary)
    }
}

extension SQLiteSessionStore {
    /// Writes one of the session's series inside the caller's transaction, as `write` says.
    private func writeSeries<Series: ChunkedSeries>(
        _ series: Series, _ write: SeriesWrite?, of key: String, in db: SQLiteConnection
    ) throws(SessionStoreError) {
        guard let write else { return }
        if let deletesFrom = write.deletesFrom {
            try db.withStatement("DELETE FROM \(Series.chunkTable) WHERE session_id = ?1 AND first >= ?2") {
                delete throws(SessionStoreError) in
                try delete.bind(key, at: 1)
                try delete.bind(deletesFrom, at: 2)
                try delete.step()
            }
        }
        if write.writesShape {
            try db.withStatement(
                "INSERT OR REPLACE INTO \(Series.shapeTable) (session_id, interval, capacity) VALUES (?1, ?2, ?3)"
            ) { upsert throws(SessionStoreError) in
                try upsert.bind(key, at: 1)
                try upsert.bind(series.interval, at: 2)
                try upsert.bind(series.capacity, at: 3)
                try upsert.step()
            }
        }
        if write.appends {
            try db.withStatement("INSERT INTO \(Series.chunkTable) (session_id, first, samples) VALUES (?1, ?2, ?3)") {
                insert throws(SessionStoreError) in
                try insert.bind(key, at: 1)
                try insert.bind(write.firstSample, at: 2)
                try insert.bind(blob: series.encodedSamples(from: write.firstSample), at: 3)
                try insert.step()
            }
        }
    }
}
