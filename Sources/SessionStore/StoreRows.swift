import MotionCore

/// A result row as both stores read it: typed columns by 0-based index. ``SQLiteStatement`` (its current row) and
/// ``PostgresRow`` are ones, so that ``SessionRows`` reads each record from its columns once for both stores.
protocol StoreRow {
    func isNull(_ column: Int32) -> Bool
    func int64(_ column: Int32) -> Int64
    func double(_ column: Int32) -> Double
    /// A text column's value.
    func string(_ column: Int32) -> String
    /// A text column's session id, read from its bytes without a `String`; nil if it is not one.
    func sessionID(_ column: Int32) -> SessionID?
    /// A blob (`bytea`) column's bytes.
    func blob(_ column: Int32) -> [UInt8]
}

extension StoreRow {
    func int(_ column: Int32) -> Int { Int(int64(column)) }

    func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : double(column) }

    func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }

    func optionalString(_ column: Int32) -> String? { isNull(column) ? nil : string(column) }
}

/// The records both stores keep in the same columns, and how each is read from a row: a session's `sessions`
/// row, its reps, its resume point, a progress point.
enum SessionRows {
    /// The `sessions` columns a ``StoredSession`` is read from, in the order ``session(from:)`` expects.
    static let sessionColumns = """
        id, tenant, subject, status, started_at, ended_at, exercise, side, first_t, last_t, frames, visible_frames,
        rep_count, rejected_count, best, baseline, fault_counts, exercise_version, prescribed_target, prescribed_rest,
        prescribed_enter, prescribed_exit, prescribed_hold_seconds, prescribed_reps, prescribed_sets, per_side, holds,
        programme_id, programme_version, programme_item, demo
        """

    /// The `sessions` columns a listing reads first (``rendered(from:version:)``): the row's own, and its rendered
    /// summary.
    static let listedColumns = """
        id, tenant, subject, status, started_at, ended_at, exercise, side, rendered_version, rendered, programme_id,
        programme_version, programme_item, demo
        """

    /// A row of ``listedColumns`` as a rendered session: nil when its summary is not kept rendered at `version`
    /// (then the session is read whole).
    static func rendered(from row: some StoreRow, version: Int?) throws(SessionStoreError) -> RenderedSession? {
        guard let version, !row.isNull(9), row.optionalInt64(8) == Int64(version) else { return nil }
        guard let id = row.sessionID(0), let status = SessionStatus(rawValue: row.string(3)) else {
            throw .corruptRecord(id: row.string(0))
        }
        let side = try Self.side(of: row)
        return RenderedSession(
            id: id, tenant: row.string(1), subject: row.optionalString(2), status: status, startedAt: row.int64(4),
            endedAt: row.optionalInt64(5), exercise: row.string(6), side: side, summary: row.blob(9),
            programme: programme(from: row, at: 10), demo: row.int64(13) != 0)
    }

    /// The programme link of a row whose columns `first`, `first + 1` and `first + 2` hold the programme's id,
    /// version and item; nil for a session of no programme.
    static func programme(from row: some StoreRow, at first: Int32) -> ProgrammeLink? {
        guard let id = row.optionalString(first) else { return nil }
        return ProgrammeLink(id: id, version: row.int(first + 1), item: row.string(first + 2))
    }

    /// The side of a row whose column 7 holds it (``sessionColumns``, ``listedColumns``).
    private static func side(of row: some StoreRow) throws(SessionStoreError) -> BodySide? {
        guard let text = row.optionalString(7) else { return nil }
        guard let side = BodySide(rawValue: text) else { throw .corruptRecord(id: row.string(0)) }
        return side
    }

    /// The `reps` columns ``rep(from:at:)`` reads.
    static let repColumns = """
        number, peak, trough, start_t, end_t, faults, time_to_peak, side, motion_smoothness, motion_tremor, motion_rms,
        motion_covered
        """

    /// The `sessions` columns a ``ProgressEntry`` is read from, in the order ``progressRow(from:)`` expects.
    static let progressColumns =
        """
        id, started_at, exercise, status, best, rep_count, rejected_count, mean_peak, fault_counts,
        prescribed_hold_seconds, prescribed_reps, prescribed_sets, programme_id, programme_version, programme_item, demo,
        prescribed_target, goal_sets_done
        """

    /// The `sessions` columns ``resumePoint(of:from:)`` reads besides the session's.
    static let resumeColumns = "resume_digest, start_request, engine_state, checkpoint_t, updated_at, holder"

    /// Reads a row over ``sessionColumns`` (reps and series left empty; holds are in the row).
    static func session(from row: some StoreRow) throws(SessionStoreError) -> StoredSession {
        guard let id = row.sessionID(0), let status = SessionStatus(rawValue: row.string(3)),
            let faultCounts = SessionRecordCoding.decodeFaultCounts(row.string(16)),
            let perSide = SessionRecordCoding.decodeTallies(row.string(25)),
            let holds = SessionRecordCoding.decodeHolds(row.string(26))
        else { throw .corruptRecord(id: row.string(0)) }
        let side = try Self.side(of: row)
        let prescription = Prescription(
            target: row.optionalDouble(18), rest: row.optionalDouble(19), enter: row.optionalDouble(20),
            exit: row.optionalDouble(21), holdSeconds: row.optionalDouble(22),
            reps: row.optionalInt64(23).map(Int.init), sets: row.optionalInt64(24).map(Int.init))
        let summary = SessionSummary(
            exercise: row.string(6), exerciseVersion: row.int(17), side: side, prescription: prescription,
            firstTimestamp: row.optionalDouble(8), lastTimestamp: row.optionalDouble(9), frames: row.int(10),
            visibleFrames: row.int(11), repCount: row.int(12), rejectedCount: row.int(13),
            best: row.optionalDouble(14), baseline: row.optionalDouble(15), holds: holds, faultCounts: faultCounts,
            perSide: perSide)
        return StoredSession(
            id: id, tenant: row.string(1), subject: row.optionalString(2), status: status, startedAt: row.int64(4),
            endedAt: row.optionalInt64(5), summary: summary, programme: programme(from: row, at: 27),
            demo: row.int64(30) != 0)
    }

    /// Reads a rep over ``repColumns`` from column `first` on; nil when its side is not one.
    static func rep(from row: some StoreRow, at first: Int32) -> Rep? {
        var side: BodySide?
        if let text = row.optionalString(first + 7) {
            guard let known = BodySide(rawValue: text) else { return nil }
            side = known
        }
        let motion = row.optionalDouble(first + 9).map { tremor in
            RepMotion(
                smoothness: row.optionalDouble(first + 8), tremor: tremor, rms: row.optionalDouble(first + 10) ?? 0,
                covered: row.optionalDouble(first + 11) ?? 0)
        }
        return Rep(
            index: row.int(first), peak: row.double(first + 1), trough: row.double(first + 2),
            start: row.double(first + 3), end: row.double(first + 4), timeToPeak: row.optionalDouble(first + 6),
            side: side, faults: SessionRecordCoding.decodeFaults(row.string(first + 5)), motion: motion)
    }

    /// Reads a row over ``resumeColumns``: what continuing `session` needs.
    static func resumePoint(of session: StoredSession, from row: some StoreRow) -> ResumePoint {
        var resumption: SessionResumption?
        if !row.isNull(0), let start = row.optionalString(1) {
            resumption = SessionResumption(tokenDigest: row.blob(0), start: start)
        }
        let state = row.isNull(2) ? nil : (state: row.blob(2), t: row.optionalDouble(3))
        return ResumePoint(
            session: session, resumption: resumption, engineState: state, updatedAt: row.int64(4),
            holder: row.optionalString(5))
    }

    /// A session of a progress answer as read, with the start time and id its page is cut and its cursor made by.
    struct ProgressRow {
        /// When the session started, Unix milliseconds (the cursor's unit).
        var startedAt: Int64
        /// The session.
        var id: SessionID
        /// The session as the answer gives it.
        var entry: ProgressEntry
    }

    /// Reads a row over ``progressColumns``.
    static func progressRow(from row: some StoreRow) throws(SessionStoreError) -> ProgressRow {
        guard let id = row.sessionID(0), let status = SessionStatus(rawValue: row.string(3)),
            let faultCounts = SessionRecordCoding.decodeFaultCounts(row.string(8))
        else { throw .corruptRecord(id: row.string(0)) }
        let startedAt = row.int64(1)
        var entry = ProgressEntry(
            id: id.description, startedAt: Double(startedAt) / 1000, exercise: row.string(2), status: status,
            best: row.optionalDouble(4), repCount: row.int(5), rejectedCount: row.int(6),
            meanPeak: row.optionalDouble(7), faultCounts: faultCounts, target: row.optionalDouble(16))
        entry.programme = programme(from: row, at: 12)
        entry.demo = row.int64(15) != 0
        entry.goal = Goal(
            prescription: Prescription(
                holdSeconds: row.optionalDouble(9), reps: row.optionalInt64(10).map(Int.init),
                sets: row.optionalInt64(11).map(Int.init)),
            setsDone: row.optionalInt64(17).map(Int.init), repCount: entry.repCount)
        return ProgressRow(startedAt: startedAt, id: id, entry: entry)
    }

    /// A page's reps as rows of `session_id` then ``repColumns`` come, grouped by session: each is appended to its
    /// session's, found by id once per session.
    struct PageReps {
        private var positions: [SessionID: Int] = [:]
        private var last: (id: SessionID, index: Int)?

        /// Reps for `sessions`, by their position there.
        init(of sessions: [StoredSession]) {
            positions.reserveCapacity(sessions.count)
            for (index, session) in sessions.enumerated() { positions[session.id] = index }
        }

        /// Appends the row's rep to its session's.
        /// - Throws: ``SessionStoreError/corruptRecord(id:)`` for a rep of no session of the page, or an unreadable
        ///   one.
        mutating func add(_ row: some StoreRow, to sessions: inout [StoredSession]) throws(SessionStoreError) {
            guard let id = row.sessionID(0) else { throw .corruptRecord(id: row.string(0)) }
            let index: Int
            if let last, last.id == id {
                index = last.index
            } else {
                guard let found = positions[id] else { throw .corruptRecord(id: row.string(0)) }
                index = found
            }
            last = (id, index)
            guard let rep = SessionRows.rep(from: row, at: 1) else { throw .corruptRecord(id: row.string(0)) }
            sessions[index].summary.reps.append(rep)
        }
    }
}

/// A listing page as a store reads it: its rows first (``SessionRows/listedColumns``), each rendered or to be read
/// whole; then those read whole, put in their places.
struct ListingAssembly {
    private var rows: [(id: SessionID, startedAt: Int64, rendered: RenderedSession?)] = []

    /// An empty page.
    init(capacity: Int) { rows.reserveCapacity(capacity) }

    /// Adds a row of ``SessionRows/listedColumns``: rendered when it has a rendering of `version`.
    mutating func add(_ row: some StoreRow, version: Int?) throws(SessionStoreError) {
        if let rendered = try SessionRows.rendered(from: row, version: version) {
            rows.append((rendered.id, rendered.startedAt, rendered))
        } else {
            guard let id = row.sessionID(0) else { throw .corruptRecord(id: row.string(0)) }
            rows.append((id, row.int64(4), nil))
        }
    }

    /// Keeps the first `limit` rows.
    /// - Returns: The cursor of the next page, or nil when no row was left out.
    mutating func cut(to limit: Int) -> String? { SessionCursor.cut(&rows, to: limit) { ($0.startedAt, $0.id) } }

    /// The sessions to read whole, in page order.
    var unrendered: [SessionID] { rows.compactMap { $0.rendered == nil ? $0.id : nil } }

    /// The page: the rendered sessions, and those read whole in their places. A session that `whole` lacks (deleted
    /// between the two reads) is left out.
    func page(whole: [StoredSession], next: String?) -> SessionPage {
        var read: [SessionID: StoredSession] = [:]
        read.reserveCapacity(whole.count)
        for session in whole { read[session.id] = session }
        let entries = rows.compactMap { row -> ListedSession? in
            if let rendered = row.rendered { return .rendered(rendered) }
            return read[row.id].map(ListedSession.read)
        }
        return SessionPage(entries: entries, next: next)
    }
}
