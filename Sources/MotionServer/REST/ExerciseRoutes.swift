import HTTPServer
import HTTPWire
import MotionCore
import MotionWire
import SessionStore

/// The exercise endpoints of docs/protocol.md §5.1: the built-in catalog and each tenant's custom exercises, with every
/// version kept; and the input formats' keypoint maps (`GET /v1/formats`) exercises and clients draw with.
///
/// Reads of current exercises come from the ``ExerciseLibrary`` (memory); writes go to the store, then to the
/// library. A tenant's custom exercises are invisible to every other tenant (404, like unknown ids).
struct ExerciseRoutes {
    let context: AppContext

    func add(to router: inout Router) {
        router.callerRoutes { routes in
            routes.get("/v1/exercises", patient: .scoped, handler: list)
            routes.post("/v1/exercises", patient: .refused, handler: create)
            routes.get("/v1/exercises/{id}", patient: .scoped, handler: get)
            routes.put("/v1/exercises/{id}", patient: .refused, handler: update)
            routes.delete("/v1/exercises/{id}", patient: .refused, handler: delete)
            routes.get("/v1/exercises/{id}/versions/{version}", patient: .scoped, handler: version)
            routes.get("/v1/exercises/{id}/demo", patient: .scoped, handler: demo)
            routes.post("/v1/exercises/demo", patient: .refused, handler: demoDraft)
            routes.post("/v1/exercises/preview", patient: .refused, handler: preview)
        }
        router.get("/v1/formats") { _ in REST.json(Self.formats) }
    }

    /// `GET /v1/formats`: how each input format's keypoints map to joints (``WireEncoder/encodeFormats(into:)``).
    /// The same for every tenant: it describes the protocol, not anyone's data.
    private static let formats: [UInt8] = {
        var body: [UInt8] = []
        WireEncoder.encodeFormats(into: &body)
        return body
    }()

    // MARK: Reads

    /// `GET /v1/exercises`: the built-in catalog, then the tenant's own by id.
    private func list(_ request: HTTPRequest, caller: Caller) -> HTTPResponse {
        var body: [UInt8] = []
        WireEncoder.encodeCatalog(
            entries: Self.builtInEntries, then: context.exercises.customExercises(tenant: caller.tenant), into: &body)
        return REST.json(body)
    }

    /// The built-in catalog's entries, encoded once: they never change while the server runs.
    private static let builtInEntries: [UInt8] = {
        var entries: [UInt8] = []
        WireEncoder.encodeCatalogEntries(Exercise.catalog, into: &entries)
        return entries
    }()

    private func get(_ request: HTTPRequest, caller: Caller) throws(RESTError) -> HTTPResponse {
        let id = request.parameters["id"] ?? ""
        guard let exercise = context.exercises.exercise(id, tenant: caller.tenant) else { throw .unknownExercise(id) }
        return Self.json(exercise)
    }

    /// `GET /v1/exercises/{id}/versions/{version}`: any stored version, also of a deleted exercise (what a stored
    /// session used); the built-in ones have only their own version.
    private func version(_ request: HTTPRequest, caller: Caller) async throws -> HTTPResponse {
        let id = request.parameters["id"] ?? ""
        guard let text = request.parameters["version"], let version = Self.versionNumber(text) else {
            throw RESTError.unknownExercise(id)
        }
        if let builtin = Exercise.named(id) {
            guard builtin.version == version else { throw RESTError.unknownExercise(id) }
            return Self.json(builtin)
        }
        let record = try await store("getExercise", id: id) {
            try await context.store.exercise(id: id, tenant: caller.tenant, version: version)
        }
        guard let record else { throw RESTError.unknownExercise(id) }
        return Self.json(try decodeStored(record))
    }

    /// `GET /v1/exercises/{id}/demo?side=left|right`: the simulated person acting out a current exercise
    /// (``DemoPerformance``); `side` defaults to `right`.
    private func demo(_ request: HTTPRequest, caller: Caller) throws(RESTError) -> HTTPResponse {
        let id = request.parameters["id"] ?? ""
        guard let exercise = context.exercises.exercise(id, tenant: caller.tenant) else { throw .unknownExercise(id) }
        var side = BodySide.right
        if let text = request.query("side") {
            guard let named = BodySide(rawValue: text) else { throw .invalidQuery("side must be left or right") }
            side = named
        }
        return REST.json(DemoPerformance.encode(exercise, side: side))
    }

    /// `POST /v1/exercises/demo`: the simulated person acting out a draft definition (`{"exercise":{…},"side":…}`,
    /// read and checked as a preview reads it; `frames` is ignored), for a page to measure with the preview.
    private func demoDraft(_ request: HTTPRequest, caller: Caller) throws -> HTTPResponse {
        _ = try REST.bodyIsNDJSON(request, allowingNDJSON: false)
        let draft = try ExercisePreviewRequest(
            decoding: request.body, limits: context.limits.wireLimits, definitionLimits: definitionLimits)
        return REST.json(DemoPerformance.encode(draft.exercise, side: draft.side ?? .right))
    }

    /// `POST /v1/exercises/preview` (``ExercisePreviewRequest``): a draft definition, checked as a save would check
    /// it, measured on the posted frames by a session of its own that is never stored; answers the draft as read,
    /// the events and the last snapshot, like a batch of poses.
    private func preview(_ request: HTTPRequest, caller: Caller) throws -> HTTPResponse {
        _ = try REST.bodyIsNDJSON(request, allowingNDJSON: false)
        let limits = context.limits.wireLimits
        let draft = try ExercisePreviewRequest(
            decoding: request.body, limits: limits, definitionLimits: definitionLimits)
        let start = StartRequest(exercise: draft.exercise.id, side: draft.side)
        let now = context.clock()
        var session = try SessionCore(
            id: SessionID.generate(at: now), tenant: caller.tenant, start: start, exercise: draft.exercise,
            startedAt: now,
            tokenDigest: nil, restoring: nil, series: ValueSeries())
        let frames = try PoseDecoder(start, limits: limits).decodeFrames(request.body)
        let outcome = session.process(frames, metrics: context.metrics)
        var body: [UInt8] = []
        WireEncoder.encodeBatchAnswer(
            exercise: draft.exercise, events: outcome.events, snapshot: session.latestSnapshot,
            errors: outcome.errors, into: &body)
        return REST.json(body)
    }

    // MARK: Writes

    /// `POST /v1/exercises`: a new custom exercise at version 1 (or one past the versions of a deleted one with the
    /// same id), `201` with `Location`. Ids are unique without regard to case: `ElbowFlexion` is refused beside the
    /// built-in `elbowFlexion` as `kneebend` is beside the tenant's `kneeBend` (the store checks that as it saves).
    private func create(_ request: HTTPRequest, caller: Caller) async throws -> HTTPResponse {
        _ = try REST.bodyIsNDJSON(request, allowingNDJSON: false)
        let exercise = try decode(request.body, id: nil)
        let folded = exercise.id.lowercased()
        if let builtin = Exercise.catalog.first(where: { $0.id.lowercased() == folded }) {
            throw RESTError.exerciseExists(builtin.id)
        }
        let saved = try await save(exercise, tenant: caller.tenant, as: .create)
        var response = Self.json(saved, status: .created)
        response.headers.add(name: "Location", value: "/v1/exercises/\(saved.id)")
        return response
    }

    /// `PUT /v1/exercises/{id}`: a new version of one of the tenant's exercises. A definition equal to the current
    /// one stores nothing and answers the current version, so repeating a `PUT` changes nothing.
    private func update(_ request: HTTPRequest, caller: Caller) async throws -> HTTPResponse {
        let id = request.parameters["id"] ?? ""
        guard Exercise.named(id) == nil else { throw RESTError.builtinExercise(id) }
        guard let current = context.exercises.custom(id, tenant: caller.tenant) else {
            throw RESTError.unknownExercise(id)
        }
        _ = try REST.bodyIsNDJSON(request, allowingNDJSON: false)
        var exercise = try decode(request.body, id: id)
        exercise.version = current.version
        guard exercise != current else { return Self.json(current) }
        return Self.json(try await save(exercise, tenant: caller.tenant, as: .update))
    }

    /// `DELETE /v1/exercises/{id}`: the exercise is no longer listed nor startable; its versions stay readable.
    private func delete(_ request: HTTPRequest, caller: Caller) async throws -> HTTPResponse {
        let id = request.parameters["id"] ?? ""
        guard Exercise.named(id) == nil else { throw RESTError.builtinExercise(id) }
        let version = try await store("deleteExercise", id: id, writes: true) {
            try await context.store.deleteExercise(id: id, tenant: caller.tenant)
        }
        guard let version else { throw RESTError.unknownExercise(id) }
        context.exercises.deleted(id, tenant: caller.tenant, version: version)
        return HTTPResponse(status: .noContent)
    }

    /// Stores `exercise` as the tenant's next version, then tells the library.
    private func save(
        _ exercise: Exercise, tenant: String, as write: ExerciseWrite
    ) async throws(RESTError) -> Exercise {
        let quota = context.exercises.quota
        let record = try await store("saveExercise", id: exercise.id, writes: true) {
            try await context.store.saveExercise(id: exercise.id, tenant: tenant, as: write, quota: quota) {
                ExerciseLibrary.definition(of: exercise, version: $0)
            }
        }
        var saved = exercise
        saved.version = record.version
        context.exercises.stored(saved, tenant: tenant)
        return saved
    }

    // MARK: Helpers

    private func decode(_ body: [UInt8], id: String?) throws(WireError) -> Exercise {
        try ExerciseDefinition.decode(body, limits: definitionLimits, id: id)
    }

    /// The size and depth a definition may have.
    private var definitionLimits: WireLimits {
        WireLimits(
            maxMessageBytes: context.exercises.limits.maxDefinitionBytes,
            maxDepth: ExerciseDefinition.defaultLimits.maxDepth)
    }

    /// A stored version as an exercise; one that no longer decodes is a damaged record: logged, `503`.
    private func decodeStored(_ record: StoredExercise) throws(RESTError) -> Exercise {
        do {
            return try ExerciseLibrary.decode(record)
        } catch {
            context.logger.log(
                .error, "stored exercise does not decode",
                ["exercise": record.id, "version": "\(record.version)", "error": "\(error)"])
            throw .storeUnavailable
        }
    }

    /// Runs a store call, timed. The store's refusals of this request (a taken id, a missing one, a full quota) are
    /// answers, not store failures, and leave `/readyz` alone; anything else is counted, logged and answered
    /// ``RESTError/storeUnavailable``.
    private func store<T: Sendable>(
        _ operation: String, id: String, writes: Bool = false, _ call: () async throws -> T
    ) async throws(RESTError) -> T {
        let outcome: Result<T, RESTError>
        do {
            outcome = try await context.timed(operation, writes: writes) { () async throws -> Result<T, RESTError> in
                do {
                    return .success(try await call())
                } catch SessionStoreError.alreadyExists {
                    return .failure(.exerciseExists(id))
                } catch SessionStoreError.alreadyExistsAs(let existing) {
                    return .failure(.exerciseExists(existing))
                } catch SessionStoreError.notFound {
                    return .failure(.unknownExercise(id))
                } catch SessionStoreError.tooManyExercises(let limit) {
                    return .failure(.tooManyExercises(limit: limit))
                } catch SessionStoreError.tooManyVersions(let limit) {
                    return .failure(.tooManyVersions(limit: limit))
                }
            }
        } catch {
            context.metrics.storeFailed(operation)
            context.logger.log(.error, "store call failed", ["operation": operation, "error": "\(error)"])
            throw .storeUnavailable
        }
        return try outcome.get()
    }

    /// A version number of the path: 1…2³¹−1 in plain digits; anything else names no version.
    private static func versionNumber(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 10, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let number = Int(text), number >= 1, number <= Int(Int32.max)
        else { return nil }
        return number
    }

    private static func json(_ exercise: Exercise, status: HTTPStatus = .ok) -> HTTPResponse {
        var body: [UInt8] = []
        WireEncoder.encodeExercise(exercise, into: &body)
        return REST.json(body, status: status)
    }
}
