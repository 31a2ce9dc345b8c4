/// One stored version of a tenant's custom exercise (docs/protocol.md §5.1).
///
/// The store keeps the definition as the text it was given and never reads it: the application encodes and decodes
/// it (MotionWire's JSON form), so this module does not depend on the wire format. Every version stays stored once
/// written — a session stored with version 2 can be shown with the definition it used after version 3 replaced it,
/// or after the exercise was deleted.
public struct StoredExercise: Sendable, Hashable {
    /// The exercise id, unique per tenant among its current exercises without regard to case (ids are ASCII).
    public var id: String
    /// The tenant that owns it; every read and write is scoped to one tenant.
    public var tenant: String
    /// The version: 1 for the first, one more with every save (numbering continues after a delete).
    public var version: Int
    /// The definition as the application encoded it.
    public var definition: String
    /// When this version was stored, Unix milliseconds (store clock).
    public var createdAt: Int64
    /// When the exercise was deleted, Unix milliseconds (store clock); nil while it is current.
    public var deletedAt: Int64?

    /// Creates a record.
    /// - Parameters:
    ///   - id: The exercise id.
    ///   - tenant: The owning tenant.
    ///   - version: The version.
    ///   - definition: The encoded definition.
    ///   - createdAt: When it was stored, Unix milliseconds.
    ///   - deletedAt: When it was deleted, Unix milliseconds.
    public init(
        id: String, tenant: String, version: Int, definition: String, createdAt: Int64, deletedAt: Int64? = nil
    ) {
        self.id = id
        self.tenant = tenant
        self.version = version
        self.definition = definition
        self.createdAt = createdAt
        self.deletedAt = deletedAt
    }
}

/// What a save of a custom exercise expects to find (``SessionStore/saveExercise(id:tenant:as:quota:definition:)``).
public enum ExerciseWrite: Sendable, Hashable {
    /// A new exercise: no current one may have the id, nor the id in another case (a deleted one may; its version
    /// numbering continues).
    case create
    /// A new version of a current exercise.
    case update
}

/// What a tenant has stored of custom exercises when it saves one, as both stores count it inside the save's
/// transaction.
struct ExerciseHoldings {
    /// The highest version stored of the exercise being saved, 0 if none.
    var latestVersion: Int
    /// Whether the exercise is current (saved and not deleted).
    var isCurrent: Bool
    /// The id of a current exercise of the tenant that differs from the one being saved only in case, if any.
    var currentInOtherCase: String? = nil
    /// The tenant's current exercises.
    var currentExercises: Int
    /// The versions the tenant has stored, of every exercise.
    var versions: Int

    /// The version a save numbers next, after checking the save against what is held and the quota.
    /// - Throws: ``SessionStoreError/alreadyExists``, ``SessionStoreError/alreadyExistsAs(id:)``,
    ///   ``SessionStoreError/notFound``, ``SessionStoreError/tooManyExercises(limit:)``,
    ///   ``SessionStoreError/tooManyVersions(limit:)``.
    func nextVersion(for write: ExerciseWrite, within quota: ExerciseQuota) throws(SessionStoreError) -> Int {
        switch write {
        case .create:
            guard !isCurrent else { throw .alreadyExists }
            if let currentInOtherCase { throw .alreadyExistsAs(id: currentInOtherCase) }
            guard currentExercises < quota.maxExercises else { throw .tooManyExercises(limit: quota.maxExercises) }
        case .update:
            guard isCurrent else { throw .notFound }
        }
        guard versions < quota.maxVersions else { throw .tooManyVersions(limit: quota.maxVersions) }
        return latestVersion + 1
    }
}

/// How much one tenant may store of custom exercises, checked in the transaction that saves one.
public struct ExerciseQuota: Sendable, Hashable {
    /// Current (not deleted) exercises per tenant.
    public var maxExercises: Int
    /// Stored versions per tenant, of every exercise, deleted ones included (stored sessions may still need them).
    public var maxVersions: Int

    /// Creates a quota.
    /// - Parameters:
    ///   - maxExercises: Current exercises per tenant.
    ///   - maxVersions: Stored versions per tenant.
    public init(maxExercises: Int, maxVersions: Int) {
        self.maxExercises = maxExercises
        self.maxVersions = maxVersions
    }
}
