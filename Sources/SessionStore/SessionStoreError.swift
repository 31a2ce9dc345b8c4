public import MotionCore

/// What a ``SessionStore`` throws. `Equatable`, so a test can expect one exact error.
public enum SessionStoreError: Error, Sendable, Hashable {
    /// The database failed: its result code (e.g. SQLite's extended code) and message.
    case database(code: Int32, message: String)
    /// The PostgreSQL server refused a statement: its SQLSTATE (`23505`, `40001`, …) and primary message.
    case server(sqlState: String, message: String)
    /// The database server cannot be reached (refused, lost, or waiting out its reconnection backoff); nothing was
    /// written. A later call connects again.
    case unavailable(message: String)
    /// The cursor was not made by this store (garbage, truncated or altered).
    case invalidCursor
    /// No session (or current custom exercise) with this id for this tenant (another tenant's is reported the same
    /// way).
    case notFound
    /// A session (or a current custom exercise) with this id already exists.
    case alreadyExists
    /// A current custom exercise of the tenant has an id that differs from the one being created only in case
    /// (exercise ids are unique without regard to case); its id as stored.
    case alreadyExistsAs(id: String)
    /// The session is not live, so it cannot be checkpointed or finished; its current status.
    case notLive(SessionStatus)
    /// The session is live (on this node or another), so it cannot be deleted: it is stopped or abandoned first.
    case stillLive
    /// The session is live but held by another node (docs/protocol.md §8): it took the session over, so this node's
    /// writes of it are refused (fencing).
    case heldElsewhere
    /// `finish` was asked to end a session with a status other than `finished` or `abandoned`.
    case invalidEndStatus(SessionStatus)
    /// A stored record could not be read back (damaged, or written by incompatible code); its id as stored.
    case corruptRecord(id: String)
    /// The database's schema is newer than this code knows (its version, and the newest known).
    case unsupportedSchemaVersion(found: Int, newestKnown: Int)
    /// A tenant already has `limit` current custom exercises.
    case tooManyExercises(limit: Int)
    /// A tenant already has `limit` stored exercise versions.
    case tooManyVersions(limit: Int)
    /// The programme was ended, so it takes no new version.
    case ended
    /// The store was closed.
    case closed
}
