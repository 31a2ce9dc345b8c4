import Basics
import MotionCore
import MotionWire
import SessionStore

/// The exercises a session can start with: the built-in catalog and each tenant's current custom exercises
/// (docs/protocol.md §5.1), held in memory so that starting a session never waits on the store.
///
/// The server loads every tenant's exercises from the store when it starts (``load(_:logger:)``) and tells the
/// library of each store write once it has succeeded (``stored(_:tenant:)``, ``deleted(_:tenant:version:)``). Built-in
/// ids are looked up first, so a custom exercise can never shadow one. A session copies the exercise it starts with:
/// a later change or delete does not reach it.
///
/// One node only: a node learns of its own writes and no other's. Nodes sharing a PostgreSQL store will need to tell
/// each other which tenant's exercise changed (`LISTEN`/`NOTIFY`), and reload it from the store, before this cache
/// can serve several of them.
final class ExerciseLibrary: Sendable {
    /// One id of one tenant: its latest version, and the exercise unless it is deleted.
    private struct Entry {
        var version: Int
        var exercise: Exercise?
    }

    /// The limits of custom exercises.
    let limits: ExerciseLimits
    private let tenants = Locked<[String: [String: Entry]]>([:])

    /// An empty library: the built-in catalog only.
    /// - Parameter limits: The limits of custom exercises.
    init(limits: ExerciseLimits = ExerciseLimits()) {
        self.limits = limits
    }

    /// The store's quota for one tenant's custom exercises.
    var quota: ExerciseQuota {
        ExerciseQuota(maxExercises: limits.maxExercisesPerTenant, maxVersions: limits.maxVersionsPerTenant)
    }

    /// The exercise a session of `tenant` starts with for `id`: a built-in one, else the tenant's own.
    /// - Parameters:
    ///   - id: The exercise id.
    ///   - tenant: The session's tenant.
    /// - Returns: The exercise, or nil when neither the catalog nor the tenant has it.
    func exercise(_ id: String, tenant: String) -> Exercise? {
        Exercise.named(id) ?? custom(id, tenant: tenant)
    }

    /// The tenant's current custom exercise with `id`, or nil.
    /// - Parameters:
    ///   - id: The exercise id.
    ///   - tenant: The tenant.
    func custom(_ id: String, tenant: String) -> Exercise? {
        tenants.withLock { $0[tenant]?[id]?.exercise }
    }

    /// The tenant's current custom exercises, ordered by id.
    /// - Parameter tenant: The tenant.
    func customExercises(tenant: String) -> [Exercise] {
        let entries = tenants.withLock { $0[tenant] ?? [:] }
        return entries.values.compactMap(\.exercise).sorted { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }
    }

    /// Fills the library with what the store holds (`SessionStore.currentExercises(tenant: nil)`). A definition that
    /// no longer decodes (written by other code) is logged and left out: its id answers 404 until it is saved again.
    /// - Parameters:
    ///   - records: The stored current exercises.
    ///   - logger: Where refused definitions are reported.
    /// - Returns: How many exercises were loaded.
    @discardableResult
    func load(_ records: [StoredExercise], logger: Logger) -> Int {
        var loaded = 0
        for record in records {
            do throws(WireError) {
                stored(try Self.decode(record), tenant: record.tenant)
                loaded += 1
            } catch {
                logger.log(
                    .error, "stored exercise no longer decodes; left out",
                    [
                        "tenant": record.tenant, "exercise": record.id, "version": "\(record.version)",
                        "error": "\(error)",
                    ])
            }
        }
        return loaded
    }

    /// Records a stored version; an older one than the library holds (writes finishing out of order) changes nothing.
    /// - Parameters:
    ///   - exercise: The exercise at its stored version.
    ///   - tenant: Its tenant.
    func stored(_ exercise: Exercise, tenant: String) {
        tenants.withLock { tenants in
            if let entry = tenants[tenant]?[exercise.id], entry.version >= exercise.version { return }
            tenants[tenant, default: [:]][exercise.id] = Entry(version: exercise.version, exercise: exercise)
        }
    }

    /// Records a delete of the exercise whose latest version was `version`; a newer version the library already
    /// holds (the id created again) stays.
    /// - Parameters:
    ///   - id: The exercise id.
    ///   - tenant: Its tenant.
    ///   - version: Its latest version when it was deleted.
    func deleted(_ id: String, tenant: String, version: Int) {
        tenants.withLock { tenants in
            if let entry = tenants[tenant]?[id], entry.version > version { return }
            tenants[tenant, default: [:]][id] = Entry(version: version, exercise: nil)
        }
    }

    /// The text the store keeps for `exercise` at `version`: the JSON form `GET` shows.
    /// - Parameters:
    ///   - exercise: The exercise.
    ///   - version: The version it is stored as.
    static func definition(of exercise: Exercise, version: Int) -> String {
        var copy = exercise
        copy.version = version
        var bytes: [UInt8] = []
        WireEncoder.encodeExercise(copy, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The exercise a stored version holds, at that version.
    /// - Parameter record: The stored version.
    /// - Throws: `WireError` when the text is not a sound definition (any more).
    static func decode(_ record: StoredExercise) throws(WireError) -> Exercise {
        // Read with room to spare: the definition was within the limit in force when it was written.
        var exercise = try ExerciseDefinition.decode(
            Array(record.definition.utf8), limits: WireLimits(maxMessageBytes: 1 << 20, maxDepth: 8), id: record.id)
        exercise.version = record.version
        return exercise
    }
}
