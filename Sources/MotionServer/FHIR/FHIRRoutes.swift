import HTTPServer
import HTTPWire
import MotionCore
import MotionWire
import SessionStore

/// The FHIR R4 export (docs/fhir.md, docs/protocol.md §5.5): sessions as Observations in a Bundle, and the
/// CodeSystems their codes come from.
///
/// - `GET /v1/sessions/{id}/fhir`: one session; `404` for an unknown id or another tenant's, as every session read.
/// - `GET /v1/subjects/{subject}/fhir?exercise=&from=&to=&limit=&cursor=`: a page of the subject's sessions, newest
///   first, with the listing's limits and cursor (`GET /v1/sessions`) and the Bundle's `self` and `next` links.
/// - Both take `type=collection` (the default) or `type=transaction`.
/// - `GET /fhir/CodeSystem/exercises` and `/fhir/CodeSystem/measures`: public, the same on every server;
///   `GET /fhir/CodeSystem/custom-exercises`: the caller's tenant's custom exercises.
struct FHIRRoutes {
    let context: AppContext
    let configuration: FHIRConfiguration

    /// The routes anyone may call: the built-in code systems hold nothing of a tenant's.
    static let publicRoutes: [String] = ["/fhir/CodeSystem/exercises", "/fhir/CodeSystem/measures"]
    /// The media type of every FHIR answer (errors keep the REST error body, `application/json`).
    static let contentType = "application/fhir+json"

    private static let exercises = encoded(FHIRCodeSystem.exercises(version: ServerVersion.current))
    private static let measures = encoded(FHIRCodeSystem.measures(version: ServerVersion.current))

    func add(to router: inout Router) {
        router.get("/fhir/CodeSystem/exercises") { _ in Self.answer(Self.exercises) }
        router.get("/fhir/CodeSystem/measures") { _ in Self.answer(Self.measures) }
        router.callerRoutes { routes in
            routes.get("/fhir/CodeSystem/custom-exercises", patient: .scoped, handler: customExercises)
            routes.get("/v1/sessions/{id}/fhir", patient: .scoped, handler: session)
            routes.get("/v1/subjects/{subject}/fhir", patient: .ownSubject, handler: subject)
        }
    }

    private func customExercises(_ request: HTTPRequest, caller: Caller) -> HTTPResponse {
        let system = FHIRCodeSystem.customExercises(
            context.exercises.customExercises(tenant: caller.tenant),
            url: FHIRConfiguration.customExerciseSystem(tenant: caller.tenant), version: ServerVersion.current)
        return Self.answer(Self.encoded(system))
    }

    /// `GET /v1/sessions/{id}/fhir`: a Bundle of the session's Observation.
    private func session(_ request: HTTPRequest, caller: Caller) async throws -> HTTPResponse {
        let kind = try Self.kind(of: request)
        guard let id = request.sessionID else { throw RESTError.notFound }
        let stored = try await context.answer("get") { try await context.store.session(id: id, tenant: caller.tenant) }
        guard let stored, caller.reaches(subject: stored.subject) else { throw RESTError.notFound }
        var codings = ExerciseCodings(context: context, tenant: caller.tenant)
        let observation = try await observation(of: stored, codings: &codings)
        let link = "/v1/sessions/\(id)/fhir" + (kind == .transaction ? "?type=transaction" : "")
        return bundle(kind, [observation], links: [FHIRBundle.Link(relation: "self", url: link)], tenant: caller.tenant)
    }

    /// `GET /v1/subjects/{subject}/fhir`: a Bundle of one page of the subject's sessions, newest first.
    private func subject(_ request: HTTPRequest, caller: Caller) async throws -> HTTPResponse {
        let subject = request.parameters["subject"] ?? ""
        if let violation = StartRequest.subjectRule.violation(in: subject) {
            throw RESTError.invalidQuery(StartRequest.subjectRule.message(for: violation, field: "subject"))
        }
        let kind = try Self.kind(of: request)
        var query = SessionQuery(tenant: caller.tenant, subject: subject)
        query.exercise = request.query("exercise")
        query.cursor = request.query("cursor").flatMap { $0.isEmpty ? nil : $0 }
        (query.from, query.to) = try SessionRoutes.window(of: request)
        if let from = query.from, let to = query.to, from > to {
            throw RESTError.invalidQuery("from must not be after to")
        }
        if let limit = try SessionRoutes.limit(of: request, maximum: SessionQuery.maximumLimit) { query.limit = limit }
        query.readsWhole = true
        let finalQuery = query
        let page = try await context.answer("fhir") { try await context.store.list(finalQuery) }
        var codings = ExerciseCodings(context: context, tenant: caller.tenant)
        var observations: [FHIRObservation] = []
        observations.reserveCapacity(page.entries.count)
        for session in page.sessions { observations.append(try await observation(of: session, codings: &codings)) }
        var links = [FHIRBundle.Link(relation: "self", url: Self.subjectLink(request, subject, kind, query.cursor))]
        if let next = page.next {
            links.append(FHIRBundle.Link(relation: "next", url: Self.subjectLink(request, subject, kind, next)))
        }
        return bundle(kind, observations, links: links, tenant: caller.tenant)
    }

    /// A page's link: the subject's path and the query as the request gave it, with `cursor`.
    private static func subjectLink(
        _ request: HTTPRequest, _ subject: String, _ kind: FHIRBundle.Kind, _ cursor: String?
    ) -> String {
        var items: [(String, String)] = []
        for name in ["exercise", "from", "to", "limit"] {
            if let value = request.query(name) { items.append((name, value)) }
        }
        if let cursor { items.append(("cursor", cursor)) }
        if kind == .transaction { items.append(("type", kind.rawValue)) }
        let query = items.map { "\($0.0)=\(FHIRConfiguration.percentEncoded($0.1))" }.joined(separator: "&")
        return "/v1/subjects/\(FHIRConfiguration.percentEncoded(subject))/fhir" + (query.isEmpty ? "" : "?" + query)
    }

    /// The `type` query value.
    /// - Throws: ``RESTError/invalidQuery(_:)`` for anything but `collection` or `transaction`.
    static func kind(of request: HTTPRequest) throws(RESTError) -> FHIRBundle.Kind {
        guard let text = request.query("type") else { return .collection }
        guard let kind = FHIRBundle.Kind(rawValue: text) else {
            throw .invalidQuery("type must be collection or transaction")
        }
        return kind
    }

    private func observation(
        of session: StoredSession, codings: inout ExerciseCodings
    ) async throws(RESTError) -> FHIRObservation {
        let exercise = try await codings.exercise(of: session.summary)
        let metadata = SummaryMetadata(
            id: session.id.description, subject: session.subject, status: SummaryMetadata.Status(session.status),
            startedAt: Double(session.startedAt) / 1000, endedAt: session.endedAt.map { Double($0) / 1000 },
            programme: session.programme)
        return FHIRObservation(
            summary: session.summary, metadata: metadata,
            entry: FHIRConfiguration.entry(session: session.id.description), exercise: exercise.coding,
            unit: exercise.unit, kind: exercise.kind)
    }

    private func bundle(
        _ kind: FHIRBundle.Kind, _ observations: [FHIRObservation], links: [FHIRBundle.Link], tenant: String
    ) -> HTTPResponse {
        let bundle = FHIRBundle(
            kind: kind, timestamp: Double(context.clock()) / 1000, links: links, observations: observations,
            subjectSystem: configuration.subjectSystem(tenant: tenant), device: ServerVersion.device)
        var body: [UInt8] = []
        // About 2 KiB an Observation.
        body.reserveCapacity(256 + observations.count * 2048)
        FHIREncoder.encodeBundle(bundle, into: &body)
        return Self.answer(body)
    }

    private static func encoded(_ system: FHIRCodeSystem) -> [UInt8] {
        var body: [UInt8] = []
        FHIREncoder.encodeCodeSystem(system, into: &body)
        return body
    }

    private static func answer(_ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: .ok, contentType: contentType, bytes: body)
    }
}

/// What the export says of a session's exercise: its coding, the unit of its values and its kind, nil where the
/// definition could not be read.
private struct ExerciseFacts {
    var coding: FHIRObservation.Coding
    var unit: Measurement.Unit?
    var kind: Exercise.Kind?

    init(_ coding: FHIRObservation.Coding, _ exercise: Exercise?) {
        self.coding = coding
        unit = exercise?.measurement.unit
        kind = exercise?.kind
    }
}

/// The exercises of one tenant's sessions, looked up once per id and version for one answer: a built-in one coded in
/// ``FHIRSystem/exercises``, a custom one in the tenant's system with the name, unit and kind of the version the
/// session used (read from the store when it is not the current one).
private struct ExerciseCodings {
    let context: AppContext
    let tenant: String
    private var found: [String: [Int: ExerciseFacts]] = [:]

    init(context: AppContext, tenant: String) {
        self.context = context
        self.tenant = tenant
    }

    mutating func exercise(of summary: SessionSummary) async throws(RESTError) -> ExerciseFacts {
        let id = summary.exercise
        if let builtin = Exercise.named(id) {
            return ExerciseFacts(.init(system: FHIRSystem.exercises, code: id, display: builtin.name), builtin)
        }
        let version = summary.exerciseVersion
        if let known = found[id]?[version] { return known }
        var exercise = context.exercises.custom(id, tenant: tenant)
        if exercise?.version != version {
            let (context, tenant) = (self.context, self.tenant)
            let record = try await context.answer("getExercise") {
                try await context.store.exercise(id: id, tenant: tenant, version: version)
            }
            // A version that no longer decodes is coded without its name and unit rather than failing the export.
            exercise = record.flatMap { try? ExerciseLibrary.decode($0) }
        }
        let coding = FHIRObservation.Coding(
            system: FHIRConfiguration.customExerciseSystem(tenant: tenant), code: id, display: exercise?.name)
        let facts = ExerciseFacts(coding, exercise)
        found[id, default: [:]][version] = facts
        return facts
    }
}
