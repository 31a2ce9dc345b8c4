import CSQLite
public import MotionCore

extension SQLiteSessionStore {
    /// Stores a new session: its row, reps and series, in one transaction.
    /// - Parameter session: The session.
    /// - Throws: ``SessionStoreError/alreadyExists`` if the id is taken; database errors.
    public func create(_ session: StoredSession) throws(SessionStoreError) {
        let db = try database()
        let now = clock()
        try db.transaction { () throws(SessionStoreError) in
            do throws(SessionStoreError) {
                try db.withStatement(
                    """
                    INSERT INTO sessions (id, tenant, subject, status, started_at, ended_at, updated_at, exercise, side,
                        first_t, last_t, frames, visible_frames, rep_count, rejected_count, best, baseline,
                        fault_counts)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)
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
            try replaceDetails(of: session.id, with: session.summary, in: db)
        }
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
        return try db.transaction { () throws(SessionStoreError) -> [SessionID: SessionStoreError] in
            var refused: [SessionID: SessionStoreError] = [:]
            for item in batch {
                do throws(SessionStoreError) {
                    try updateRow(
                        id: item.id, tenant: item.tenant, summary: item.summary, status: .live, endedAt: nil, now: now,
                        in: db)
                } catch .notFound {
                    refused[item.id] = .notFound
                } catch .notLive(let status) {
                    refused[item.id] = .notLive(status)
                }
            }
            return refused
        }
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
        return try db.withStatement("DELETE FROM sessions WHERE id = ?1 AND tenant = ?2") {
            delete throws(SessionStoreError) in
            try delete.bind(id.description, at: 1)
            try delete.bind(tenant, at: 2)
            try delete.step()
            return db.changes > 0
        }
    }

    /// Marks `abandoned` every live session last written before `cutoff`; its end time becomes that last write's.
    /// - Parameter cutoff: Unix milliseconds (store clock).
    /// - Returns: How many sessions were abandoned.
    /// - Throws: Database errors.
    public func abandonLiveSessions(updatedBefore cutoff: Int64) throws(SessionStoreError) -> Int {
        let db = try database()
        let now = clock()
        return try db.withStatement(
            """
            UPDATE sessions SET status = 'abandoned', ended_at = updated_at, updated_at = ?2
            WHERE status = 'live' AND updated_at < ?1
            """
        ) { abandon throws(SessionStoreError) in
            try abandon.bind(cutoff, at: 1)
            try abandon.bind(now, at: 2)
            try abandon.step()
            return db.changes
        }
    }

    private func update(
        id: SessionID, tenant: String, summary: SessionSummary, status: SessionStatus, endedAt: Int64?
    ) throws(SessionStoreError) {
        let db = try database()
        let now = clock()
        try db.transaction { () throws(SessionStoreError) in
            try updateRow(id: id, tenant: tenant, summary: summary, status: status, endedAt: endedAt, now: now, in: db)
        }
    }

    /// Updates a live session's row, reps and series inside the caller's transaction.
    /// - Throws: ``SessionStoreError/notFound`` or ``SessionStoreError/notLive(_:)`` having changed nothing; database
    ///   errors.
    private func updateRow(
        id: SessionID, tenant: String, summary: SessionSummary, status: SessionStatus, endedAt: Int64?, now: Int64,
        in db: SQLiteConnection
    ) throws(SessionStoreError) {
        // Only a live session changes, so a late checkpoint never overwrites a final summary.
        let changed = try db.withStatement(
            """
            UPDATE sessions SET status = ?3, ended_at = ?4, updated_at = ?5, exercise = ?6, side = ?7,
                first_t = ?8, last_t = ?9, frames = ?10, visible_frames = ?11, rep_count = ?12,
                rejected_count = ?13, best = ?14, baseline = ?15, fault_counts = ?16
            WHERE id = ?1 AND tenant = ?2 AND status = 'live'
            """
        ) { update throws(SessionStoreError) in
            try update.bind(id.description, at: 1)
            try update.bind(tenant, at: 2)
            try update.bind(status.rawValue, at: 3)
            try update.bind(endedAt, at: 4)
            try update.bind(now, at: 5)
            try bindSummaryColumns(summary, to: update, from: 6)
            try update.step()
            return db.changes > 0
        }
        guard changed else {
            guard let current = try self.status(of: id, tenant: tenant, in: db) else { throw .notFound }
            throw .notLive(current)
        }
        try replaceDetails(of: id, with: summary, in: db)
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

    /// Binds exercise, side, first_t, last_t, frames, visible_frames, rep_count, rejected_count, best, baseline and
    /// fault_counts to 11 consecutive parameters.
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
    }

    /// Replaces the session's reps and series (inside the caller's transaction).
    private func replaceDetails(
        of id: SessionID, with summary: SessionSummary, in db: SQLiteConnection
    ) throws(SessionStoreError) {
        let key = id.description
        try db.withStatement("DELETE FROM reps WHERE session_id = ?1") { delete throws(SessionStoreError) in
            try delete.bind(key, at: 1)
            try delete.step()
        }
        try db.withStatement(
            """
            INSERT INTO reps (session_id, position, number, peak, trough, start_t, end_t, faults)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
            """
        ) { insert throws(SessionStoreError) in
            for (position, rep) in summary.reps.enumerated() {
                insert.reset()
                try insert.bind(key, at: 1)
                try insert.bind(position, at: 2)
                try insert.bind(rep.index, at: 3)
                try insert.bind(rep.peak, at: 4)
                try insert.bind(rep.trough, at: 5)
                try insert.bind(rep.start, at: 6)
                try insert.bind(rep.end, at: 7)
                try insert.bind(SessionRecordCoding.encode(rep.faults), at: 8)
                try insert.step()
            }
        }
        try db.withStatement(
            "INSERT OR REPLACE INTO series (session_id, interval, capacity, samples) VALUES (?1, ?2, ?3, ?4)"
        ) { upsert throws(SessionStoreError) in
            try upsert.bind(key, at: 1)
            try upsert.bind(summary.series.interval, at: 2)
            try upsert.bind(summary.series.capacity, at: 3)
            try upsert.bind(blob: SessionRecordCoding.encodeSamples(summary.series), at: 4)
            try upsert.step()
        }
    }
}
