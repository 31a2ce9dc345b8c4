public import MotionCore

/// Persistence of session summaries, reps and series (docs/session-store.md).
///
/// Implementations do their blocking work on their own threads, never on the caller's (an event loop): every call is
/// `async`. Every read and write is scoped to a tenant: another tenant's session behaves exactly like an unknown one
/// (`nil`, `false` or ``SessionStoreError/notFound``). The same contract fits an embedded database
/// (``SQLiteSessionStore``) and a shared server one (PostgreSQL, several nodes): ids are made by the caller,
/// pagination is by key, and abandoning stale live sessions takes a cutoff rather than assuming one process.
///
/// A session's life:
///
///     try await store.create(StoredSession(id: id, tenant: t, startedAt: now, summary: session.summary))
///     try await store.checkpoint(id: id, tenant: t, summary: session.summary)  // every few seconds
///     try await store.finish(id: id, tenant: t, summary: session.summary, status: .finished, endedAt: later)
///
/// and at start, before taking sessions: `try await store.abandonLiveSessions()`.
public protocol SessionStore: Sendable {
    /// The node this store writes for (docs/protocol.md §8): it holds the live sessions it creates or claims, and only the
    /// holder's checkpoints and final summary of a session are taken (``SessionStoreError/heldElsewhere``).
    var node: String { get }

    /// Stores a new session: its row, reps and series, and its ``StoredSession/resumption`` if any, atomically.
    ///
    /// Usually `live` with the summary so far; a recorded session (`POST /v1/analyze`) may be stored `finished`.
    /// - Parameter session: The session.
    /// - Throws: ``SessionStoreError/alreadyExists`` if the id is taken; database errors.
    func create(_ session: StoredSession) async throws

    /// Stores several new sessions at once, all or nothing (one transaction, one commit), as creating them one by one
    /// would: a session whose id is taken is not stored and is reported, the others are.
    /// - Parameter sessions: The sessions.
    /// - Returns: ``SessionStoreError/alreadyExists`` for the ids that were taken, by a stored session or by an earlier
    ///   session of the batch (which was stored).
    /// - Throws: Database errors (then none was stored).
    func create(_ sessions: [StoredSession]) async throws -> [SessionID: SessionStoreError]

    /// Replaces a live session's summary, reps and series with newer ones, atomically.
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    ///   - summary: The summary so far.
    /// - Throws: ``SessionStoreError/notFound``; ``SessionStoreError/notLive(_:)`` if it already ended (a late
    ///   checkpoint never overwrites a final summary); ``SessionStoreError/heldElsewhere`` if another node holds it;
    ///   database errors.
    func checkpoint(id: SessionID, tenant: String, summary: SessionSummary) async throws

    /// Checkpoints several live sessions at once, all or nothing (one transaction where the store has them), as
    /// ``checkpoint(id:tenant:summary:)`` would one by one: a checkpoint of a session that is unknown or already
    /// ended changes nothing and is reported, the others are applied.
    /// - Parameter batch: The checkpoints, applied in order (a session may appear more than once).
    /// - Returns: The checkpoints not applied, by session, with why (``SessionStoreError/notFound``,
    ///   ``SessionStoreError/notLive(_:)`` or ``SessionStoreError/heldElsewhere``).
    /// - Throws: Database errors (then none was applied).
    func checkpoint(_ batch: [SessionCheckpoint]) async throws -> [SessionID: SessionStoreError]

    /// Ends a live session with its final summary.
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    ///   - summary: The final summary.
    ///   - status: `finished` or `abandoned`.
    ///   - endedAt: When it ended, Unix milliseconds.
    /// - Throws: ``SessionStoreError/invalidEndStatus(_:)`` for `live`; ``SessionStoreError/notFound``;
    ///   ``SessionStoreError/notLive(_:)`` if it already ended; ``SessionStoreError/heldElsewhere``; database errors.
    func finish(
        id: SessionID, tenant: String, summary: SessionSummary, status: SessionStatus, endedAt: Int64)
        async throws

    /// One session with its reps and series.
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    /// - Returns: The session, or nil if this tenant has none with this id.
    /// - Throws: ``SessionStoreError/corruptRecord(id:)``; database errors.
    func session(id: SessionID, tenant: String) async throws -> StoredSession?

    /// A live session's engine state as of its last checkpoint, and the timestamp of the last pose it covers.
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    /// - Returns: The state, or nil when this tenant has no such session, it has ended, or none was kept.
    /// - Throws: Database errors.
    func engineState(id: SessionID, tenant: String) async throws -> (state: [UInt8], t: Double?)?

    /// What continuing a session needs (docs/protocol.md §3.1): the stored session with reps and series, its
    /// resumption record, the engine state of its last checkpoint and when it was last written, read together.
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    /// - Returns: The resume point, or nil if this tenant has no such session.
    /// - Throws: ``SessionStoreError/corruptRecord(id:)``; database errors.
    func resumePoint(id: SessionID, tenant: String) async throws -> ResumePoint?

    /// Every live session (of any tenant), oldest write first: what a starting single node finds left by the
    /// process before it, to keep resumable for their window.
    /// - Returns: The sessions.
    /// - Throws: Database errors.
    func liveSessions() async throws -> [LiveSessionEntry]

    /// Marks one live session `abandoned`, keeping its last checkpoint; its end time becomes the time of that last
    /// write (as ``abandonLiveSessions(updatedBefore:)`` does for many). Its summary is rendered with it
    /// (``SummaryRendering``), in one transaction.
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    /// - Returns: Whether a live session was abandoned (false: unknown, or it had ended).
    /// - Throws: Database errors.
    func abandon(id: SessionID, tenant: String) async throws -> Bool

    /// A session's value series (`GET /v1/sessions/{id}/series`).
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    /// - Returns: The series (empty if none was stored), or nil if this tenant has no such session.
    /// - Throws: ``SessionStoreError/corruptRecord(id:)``; database errors.
    func series(id: SessionID, tenant: String) async throws -> ValueSeries?

    /// A session's motion series: the phone's acceleration, downsampled (`GET /v1/sessions/{id}/motion`).
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    /// - Returns: The series (empty if none was stored), or nil if this tenant has no such session.
    /// - Throws: ``SessionStoreError/corruptRecord(id:)``; database errors.
    func motion(id: SessionID, tenant: String) async throws -> MotionSeries?

    /// One page of a tenant's sessions, newest first, with reps but without series.
    /// - Parameter query: Tenant, filters, page size and cursor.
    /// - Returns: The page and the cursor of the next one.
    /// - Throws: ``SessionStoreError/invalidCursor``; ``SessionStoreError/corruptRecord(id:)``; database errors.
    func list(_ query: SessionQuery) async throws -> SessionPage

    /// Renders the summaries of ended sessions that have none at this store's ``SummaryRendering`` version: stored
    /// before renderings were kept, at another version, or by a store that kept none.
    /// Sessions are taken in id order after `after`, at most `limit` of them, in one transaction; on PostgreSQL a
    /// session another node is rendering meanwhile is skipped.
    ///
    /// Call it again with the returned id until that is nil: one pass over the table, whatever its size.
    /// - Parameters:
    ///   - after: The id to continue after (nil: from the start).
    ///   - limit: The most sessions to render.
    /// - Returns: How many were rendered, and the id to continue after; nil when the pass is complete (or the store
    ///   keeps no rendering).
    /// - Throws: ``SessionStoreError/corruptRecord(id:)``; database errors.
    func renderSummaries(after: SessionID?, limit: Int) async throws -> (rendered: Int, next: SessionID?)

    /// How many of a tenant's sessions match a listing's filters, all its pages together: the total a pager shows
    /// ("21–40 of 137"). The query's cursor and limit are ignored.
    /// - Parameter query: Tenant and filters.
    /// - Returns: The number of matching sessions.
    /// - Throws: Database errors.
    /// - Complexity: O(matching sessions): a count reads every matching index entry, which is why listings ask for
    ///   it only on request (`GET /v1/sessions?total=true`).
    func count(_ query: SessionQuery) async throws -> Int

    /// One subject's latest sessions in a window, oldest first, for trend charts (counts, best and the clean reps'
    /// mean peak, without reps or series).
    /// - Parameter query: Tenant, subject, filters and limit.
    /// - Returns: At most the query's limit of sessions, and whether older ones in the window were left out.
    /// - Throws: ``SessionStoreError/corruptRecord(id:)``; database errors.
    func progress(_ query: ProgressQuery) async throws -> ProgressPage

    /// Deletes an ended session and everything stored for it (reps, series, motion series). A live one is refused
    /// whichever node runs it, in the statement that deletes: a session in progress is never deleted under its
    /// client.
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    /// - Returns: Whether there was such a session.
    /// - Throws: ``SessionStoreError/stillLive`` for a live session; database errors.
    func delete(id: SessionID, tenant: String) async throws -> Bool

    /// Marks `abandoned` every live session (of any tenant) last written before `cutoff` and held by none of
    /// `holders`, keeping its last checkpoint; its end time becomes the time of that last write. Their summaries are
    /// rendered with them (``SummaryRendering``), in one transaction.
    ///
    /// Nodes pass the live nodes (``liveNodes(heartbeatSince:)``) as `holders` and the resume window as the cutoff:
    /// what a dead node held and nobody resumed in time is abandoned, what a live node holds is its own business.
    /// - Parameters:
    ///   - cutoff: Unix milliseconds (store clock).
    ///   - holders: Nodes whose sessions stay untouched.
    /// - Returns: How many sessions were abandoned.
    /// - Throws: Database errors.
    func abandonLiveSessions(updatedBefore cutoff: Int64, except holders: Set<String>) async throws -> Int

    // MARK: Holders (docs/protocol.md §8)

    /// Makes this store's ``node`` the holder of a live session if `holder` holds it now (compare and set), so two
    /// nodes resuming one session never both take it.
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    ///   - holder: The holder the caller saw (a dead node's id, or nil for a session nobody holds).
    /// - Returns: Whether this node holds the session now (false: it ended, vanished, or its holder changed).
    /// - Throws: Database errors.
    func claim(id: SessionID, tenant: String, from holder: String?) async throws -> Bool

    /// Lets go of a live session this node holds (after its last checkpoint), so another node can claim it.
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    /// - Returns: Whether this node held it.
    /// - Throws: Database errors.
    func release(id: SessionID, tenant: String) async throws -> Bool

    /// Records whether a client is attached to a live session this store's node holds (for REST on the other
    /// nodes); a session is created attached.
    /// - Parameters:
    ///   - connected: Whether a client is attached.
    ///   - id: The session.
    ///   - tenant: Its tenant.
    /// - Throws: Database errors (a session not held here, or ended, is left as it is).
    func setConnected(_ connected: Bool, id: SessionID, tenant: String) async throws

    /// Whether a client is attached to each of these live sessions, as their holders last wrote it.
    /// - Parameters:
    ///   - ids: The sessions.
    ///   - tenant: Their tenant.
    /// - Returns: The flags of those that are live and have one.
    /// - Throws: Database errors.
    func connected(_ ids: [SessionID], tenant: String) async throws -> [SessionID: Bool]

    /// The nodes alive now: registered, heartbeating since `cutoff`, and connected to the database. An embedded
    /// store has one node, its own process.
    /// - Parameter cutoff: Unix milliseconds (store clock): a node whose last heartbeat is older is dead.
    /// - Returns: The nodes' ids, this store's ``node`` among them.
    /// - Throws: Database errors.
    func liveNodes(heartbeatSince cutoff: Int64) async throws -> Set<String>

    // MARK: Custom exercises (docs/protocol.md §5.1)

    /// Stores a new version of a tenant's custom exercise, atomically: the store numbers it one past the latest
    /// version of the id (1 for an id never used), gets its text from `definition`, and checks `quota` in the
    /// same transaction, so concurrent saves can neither share a version nor pass the quota.
    ///
    /// ```swift
    /// let stored = try await store.saveExercise(id: "kneeBend", tenant: t, as: .create, quota: quota) { version in
    ///     encode(exercise, version: version)
    /// }
    /// ```
    /// - Parameters:
    ///   - id: The exercise id.
    ///   - tenant: Its tenant.
    ///   - write: ``ExerciseWrite/create`` or ``ExerciseWrite/update``.
    ///   - quota: The tenant's limits.
    ///   - definition: The text to store, given the version number it is stored as.
    /// - Returns: What was stored.
    /// - Throws: ``SessionStoreError/alreadyExists`` (create: a current exercise has the id);
    ///   ``SessionStoreError/notFound`` (update: none has); ``SessionStoreError/tooManyExercises(limit:)`` (create:
    ///   the tenant has `quota.maxExercises` current ones); ``SessionStoreError/tooManyVersions(limit:)``; database
    ///   errors.
    func saveExercise(
        id: String, tenant: String, as write: ExerciseWrite, quota: ExerciseQuota,
        definition: @Sendable (Int) -> String
    ) async throws -> StoredExercise

    /// The latest version of every current (not deleted) custom exercise, by tenant then id.
    /// - Parameter tenant: The tenant, or nil for every tenant's (what a server loads at start).
    /// - Returns: The exercises, ordered by tenant, then id.
    /// - Throws: Database errors.
    func currentExercises(tenant: String?) async throws -> [StoredExercise]

    /// One version of a tenant's custom exercise.
    /// - Parameters:
    ///   - id: The exercise id.
    ///   - tenant: Its tenant.
    ///   - version: The version (found even when the exercise was deleted), or nil for the latest of a current
    ///     exercise.
    /// - Returns: The version, or nil when there is none.
    /// - Throws: Database errors.
    func exercise(id: String, tenant: String, version: Int?) async throws -> StoredExercise?

    /// Deletes a tenant's custom exercise: it is no longer current, and its versions stay readable by number.
    /// - Parameters:
    ///   - id: The exercise id.
    ///   - tenant: Its tenant.
    /// - Returns: The latest version it had, or nil when the tenant has no current exercise with this id.
    /// - Throws: Database errors.
    func deleteExercise(id: String, tenant: String) async throws -> Int?

    // MARK: Programmes (docs/protocol.md §5.3)

    /// Stores a new version of a programme, atomically: the store numbers it one past the id's latest version (1 for
    /// a new id), gets its text from `definition`, and checks the tenant's stored versions against `maxVersions` in
    /// the same transaction.
    /// - Parameters:
    ///   - draft: The programme's id, tenant and the columns kept beside the text.
    ///   - write: ``ExerciseWrite/create`` (the id must be unused) or ``ExerciseWrite/update`` (the programme must
    ///     exist and run).
    ///   - maxVersions: The most programme versions a tenant may store.
    ///   - definition: The text to store, given the version number it is stored as.
    /// - Returns: What was stored.
    /// - Throws: ``SessionStoreError/alreadyExists`` (create); ``SessionStoreError/notFound`` (update: no such
    ///   programme); ``SessionStoreError/ended`` (update: it was ended); ``SessionStoreError/tooManyVersions(limit:)``;
    ///   database errors.
    func saveProgramme(
        _ draft: ProgrammeDraft, as write: ExerciseWrite, maxVersions: Int, definition: @Sendable (Int) -> String
    ) async throws -> StoredProgramme

    /// One version of a tenant's programme.
    /// - Parameters:
    ///   - id: The programme id.
    ///   - tenant: Its tenant.
    ///   - version: The version, or nil for the latest (also of an ended programme).
    /// - Returns: The version, or nil when there is none.
    /// - Throws: Database errors.
    func programme(id: String, tenant: String, version: Int?) async throws -> StoredProgramme?

    /// One page of a tenant's programmes at their latest versions, newest first.
    /// - Parameter query: Tenant, filters, page size and cursor.
    /// - Returns: The page.
    /// - Throws: ``SessionStoreError/invalidCursor``; database errors.
    func programmes(_ query: ProgrammeQuery) async throws -> ProgrammePage

    /// Ends a running programme: its versions stay readable and its sessions keep their link.
    /// - Parameters:
    ///   - id: The programme id.
    ///   - tenant: Its tenant.
    /// - Returns: Whether a running programme was ended (false: unknown, or already ended).
    /// - Throws: Database errors.
    func endProgramme(id: String, tenant: String) async throws -> Bool

    // MARK: Patient codes (docs/protocol.md §6.1)

    /// Stores a new patient code, checking in the same transaction that the subject keeps fewer than `maxPerSubject`
    /// codes that neither expired nor were revoked by `code.createdAt`.
    /// - Parameters:
    ///   - code: The code's record (its digest, never the code).
    ///   - maxPerSubject: The most working codes a subject may have.
    /// - Throws: ``SessionStoreError/alreadyExists`` (the id or digest is taken);
    ///   ``SessionStoreError/tooManyVersions(limit:)`` when the subject has `maxPerSubject` working codes; database
    ///   errors.
    func createAccessCode(_ code: StoredAccessCode, maxPerSubject: Int) async throws

    /// Patient codes: one subject's of a tenant, or, with both nil, every code of every tenant that has not expired
    /// by the store's clock, revoked ones included (what a server loads at start, and what the nodes sharing a
    /// database read again to learn of each other's codes and revocations).
    /// - Parameters:
    ///   - tenant: The tenant, or nil for all.
    ///   - subject: The subject, or nil for all of the tenant's.
    /// - Returns: The codes, oldest first.
    /// - Throws: Database errors.
    func accessCodes(tenant: String?, subject: String?) async throws -> [StoredAccessCode]

    /// Revokes a code of a subject at once.
    /// - Parameters:
    ///   - id: The code's id.
    ///   - tenant: Its tenant.
    ///   - subject: Its subject.
    /// - Returns: The code as revoked, or nil when the subject has no working code with this id.
    /// - Throws: Database errors.
    func revokeAccessCode(id: String, tenant: String, subject: String) async throws -> StoredAccessCode?

    /// Checks that the store can take a write now (a readiness probe) by making one: this node's row of the probe
    /// table is written in a transaction of its own, as a session's create would be (a full disk, a read-only or
    /// lost database fails it). Nothing else changes.
    /// - Throws: Database errors: the disk is full, the store is locked, read-only, or gone.
    func probe() async throws

    /// Asks the store to try its database again at once rather than at the end of a reconnection backoff: a write
    /// that must be stored is waiting. Stores without a connection to lose (SQLite) do nothing.
    func expediteReconnection() async

    /// Releases the database; later calls throw ``SessionStoreError/closed``. Calling it again does nothing.
    func close() async
}

extension SessionStore {
    /// Does nothing: the store has no backoff to cut short.
    public func expediteReconnection() async {}

    /// Marks `abandoned` every live session: call it at start, before taking sessions, on a single node.
    /// - Returns: How many sessions were abandoned.
    /// - Throws: Database errors.
    public func abandonLiveSessions() async throws -> Int {
        try await abandonLiveSessions(updatedBefore: .max, except: [])
    }

    /// Marks `abandoned` every live session last written before `cutoff`, whoever holds it.
    /// - Parameter cutoff: Unix milliseconds (store clock).
    /// - Returns: How many sessions were abandoned.
    /// - Throws: Database errors.
    public func abandonLiveSessions(updatedBefore cutoff: Int64) async throws -> Int {
        try await abandonLiveSessions(updatedBefore: cutoff, except: [])
    }
}

/// One live session's summary so far, for ``SessionStore/checkpoint(_:)``.
public struct SessionCheckpoint: Sendable, Hashable {
    /// The session.
    public var id: SessionID
    /// Its tenant.
    public var tenant: String
    /// The summary so far.
    public var summary: SessionSummary
    /// The engine's state as of the summary's last pose (`MotionEngine.savedState()`, without the series), kept so
    /// the session can be restored; nil to keep none.
    public var engineState: [UInt8]?

    /// Creates a checkpoint.
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    ///   - summary: The summary so far.
    ///   - engineState: The engine's saved state at the summary's last pose.
    public init(id: SessionID, tenant: String, summary: SessionSummary, engineState: [UInt8]? = nil) {
        self.id = id
        self.tenant = tenant
        self.summary = summary
        self.engineState = engineState
    }
}
