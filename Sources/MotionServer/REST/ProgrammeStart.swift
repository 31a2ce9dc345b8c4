import MotionCore
import MotionWire
import SessionStore

/// A `start` that names a programme item (docs/protocol.md §5.3), made into the `start` the session runs: the item's
/// exercise at the version the programme pinned, its side and prescription, the programme's subject, and the link
/// to the programme version it came from. The client keeps what is its own: the input format, `mirrored`,
/// `minConfidence`, `baselineReps`, `snapshots` and `demo`.
struct ProgrammeStart {
    /// The `start` the session runs.
    var start: StartRequest
    /// The exercise at the programme's pinned version.
    var exercise: Exercise

    /// Resolves `start` for `caller`; nil when it names no programme (an exercise's `start`, as before).
    /// - Throws: `invalidMessage` for a `start` that also names an exercise, another side or subject, or a
    ///   prescription of its own; `unknownProgramme`; `programmeEnded`; `storeUnavailable` when the store fails.
    static func resolve(
        _ start: StartRequest, caller: Caller, context: AppContext
    ) async throws(WireError) -> ProgrammeStart? {
        guard let link = start.programme else {
            if caller.subject != nil {
                throw WireError(
                    code: .invalidMessage, message: "a patient code starts programme items only: name programme")
            }
            return nil
        }
        guard start.exercise.isEmpty else {
            throw WireError(code: .invalidMessage, message: "start names an exercise or a programme item, not both")
        }
        guard start.options.prescription == Prescription() else {
            throw WireError(
                code: .invalidMessage,
                message: "a programme item's prescription applies: options may set only baselineReps and snapshots")
        }
        let stored: StoredProgramme?
        do {
            stored = try await context.timed("getProgramme") {
                try await context.store.programme(id: link.id, tenant: caller.tenant, version: nil)
            }
        } catch {
            context.metrics.storeFailed("getProgramme")
            context.logger.log(.error, "store call failed", ["operation": "getProgramme", "error": "\(error)"])
            throw WireError(code: .storeUnavailable, message: "the programme could not be read; try again")
        }
        let unknown = WireError(code: .unknownProgramme, message: "no programme item '\(link.id)' '\(link.item)'")
        guard let stored, caller.subject == nil || caller.subject == stored.subject else { throw unknown }
        guard stored.endedAt == nil else { throw WireError(code: .programmeEnded, message: "the programme has ended") }
        let programme: Programme
        do {
            programme = try ProgrammeDocument.decodeStored(stored.definition)
        } catch {
            context.logger.log(.error, "stored programme does not decode", ["programme": stored.id])
            throw WireError(code: .storeUnavailable, message: "the programme could not be read")
        }
        guard let item = programme.item(link.item) else { throw unknown }
        if let side = start.side, side != item.side {
            throw WireError(code: .invalidMessage, message: "the item's side is \(item.side?.rawValue ?? "none")")
        }
        if let subject = start.subject, subject != programme.subject {
            throw WireError(code: .invalidMessage, message: "the programme's subject applies; leave subject out")
        }
        let exercise = try await pinned(item, tenant: caller.tenant, context: context)
        var resolved = start
        resolved.exercise = item.exercise
        resolved.side = item.side
        resolved.subject = programme.subject
        resolved.options.prescription = item.prescription
        resolved.programme = ProgrammeLink(id: programme.id, version: programme.version, item: item.item)
        return ProgrammeStart(start: resolved, exercise: exercise)
    }

    /// The item's exercise at the version the programme pinned: a built-in one as the catalog has it, a custom one
    /// from the library when it is still at that version, else from the store.
    private static func pinned(
        _ item: Programme.Item, tenant: String, context: AppContext
    ) async throws(WireError) -> Exercise {
        if let builtin = Exercise.named(item.exercise) { return builtin }
        let exercise = try await custom(item.exercise, version: item.exerciseVersion, tenant: tenant, context: context)
        guard let exercise else {
            throw WireError(
                code: .unknownExercise, message: "no exercise '\(item.exercise)' version \(item.exerciseVersion)")
        }
        return exercise
    }

    /// The tenant's custom exercise `id` at `version`: from the library when it is at that version, else from the
    /// store (every version is kept there).
    /// - Returns: The exercise at that version, or nil when the tenant never stored it.
    /// - Throws: `storeUnavailable` when the store fails or the stored text no longer reads.
    static func custom(
        _ id: String, version: Int, tenant: String, context: AppContext
    ) async throws(WireError) -> Exercise? {
        if let current = context.exercises.custom(id, tenant: tenant), current.version == version {
            return current
        }
        let record: StoredExercise?
        do {
            record = try await context.timed("getExercise") {
                try await context.store.exercise(id: id, tenant: tenant, version: version)
            }
        } catch {
            context.metrics.storeFailed("getExercise")
            throw WireError(code: .storeUnavailable, message: "the exercise could not be read; try again")
        }
        guard let record else { return nil }
        do {
            return try ExerciseLibrary.decode(record)
        } catch {
            context.logger.log(.error, "stored exercise does not decode", ["exercise": id, "version": "\(version)"])
            throw WireError(code: .storeUnavailable, message: "the exercise could not be read")
        }
    }
}
