import HTTPServer
import HTTPWire
import MotionCore
import MotionWire
import PortableBasics
import SessionStore
import ZoneInfo

/// The programme endpoints of docs/protocol.md §5.3: what a clinician prescribes to one subject, every version kept.
///
/// A save checks each item against the exercise version it pins (the exercise exists, a one-sided one has its side,
/// the engine takes the prescription): the version the item names, else the exercise's current one, which it pins
/// into the stored programme: a later change of the exercise does not change what the programme prescribes. Refusals are `422 invalidProgramme` with
/// the pointer of the item's field.
struct ProgrammeRoutes {
    let context: AppContext

    func add(to router: inout Router) {
        router.callerRoutes { routes in
            routes.post("/v1/programmes", patient: .refused, handler: create)
            routes.get("/v1/programmes", patient: .scoped, handler: list)
            routes.get("/v1/programmes/{id}", patient: .scoped, handler: get)
            routes.put("/v1/programmes/{id}", patient: .refused, handler: update)
            routes.delete("/v1/programmes/{id}", patient: .refused, handler: end)
            routes.get("/v1/subjects/{subject}/adherence", patient: .ownSubject, handler: adherence)
        }
    }

    /// The bounds of a programme body.
    private var limits: ProgrammeLimits { context.limits.programmes }

    // MARK: Writes

    /// `POST /v1/programmes`: a new programme at version 1, `201` with `Location`.
    private func create(_ request: HTTPRequest, caller: Caller) async throws -> HTTPResponse {
        _ = try REST.bodyIsNDJSON(request, allowingNDJSON: false)
        var programme = try ProgrammeDocument.decode(request.body, limits: limits)
        programme.items = try await pinned(programme.items, tenant: caller.tenant)
        programme.id = SessionID.generate(at: context.clock()).description
        let stored = try await save(programme, tenant: caller.tenant, as: .create)
        var response = Self.json(stored, status: .created)
        response.headers.add(name: "Location", value: "/v1/programmes/\(stored.id)")
        return response
    }

    /// `PUT /v1/programmes/{id}`: a new version of a running programme; its subject cannot change.
    private func update(_ request: HTTPRequest, caller: Caller) async throws -> HTTPResponse {
        let current = try await latest(request, tenant: caller.tenant)
        guard current.endedAt == nil else { throw RESTError.programmeEnded }
        _ = try REST.bodyIsNDJSON(request, allowingNDJSON: false)
        var programme = try ProgrammeDocument.decode(request.body, limits: limits)
        guard programme.subject == current.subject else {
            throw RESTError.invalidInput(
                WireError(
                    code: .invalidProgramme, message: "a programme's subject cannot change; create another programme",
                    pointer: "/subject"))
        }
        programme.items = try await pinned(programme.items, tenant: caller.tenant)
        programme.id = current.id
        return Self.json(try await save(programme, tenant: caller.tenant, as: .update))
    }

    /// `DELETE /v1/programmes/{id}`: ends the programme (`204`, also when it had ended); its versions stay readable
    /// and its sessions keep their link.
    private func end(_ request: HTTPRequest, caller: Caller) async throws -> HTTPResponse {
        let current = try await latest(request, tenant: caller.tenant)
        if current.endedAt == nil {
            _ = try await context.answer("endProgramme", writes: true) {
                try await context.store.endProgramme(id: current.id, tenant: caller.tenant)
            }
        }
        return HTTPResponse(status: .noContent)
    }

    /// Stores `programme` as the next version, and reads it back as stored.
    private func save(
        _ programme: Programme, tenant: String, as write: ExerciseWrite
    ) async throws(RESTError) -> StoredProgramme {
        let draft = ProgrammeDraft(
            id: programme.id, tenant: tenant, subject: programme.subject, startsOn: programme.startsOn.description,
            endsOn: programme.endsOn?.description)
        let maxVersions = limits.maxVersionsPerTenant
        let outcome: Result<StoredProgramme, RESTError> = try await context.answer("saveProgramme", writes: true) {
            do {
                return .success(
                    try await context.store.saveProgramme(draft, as: write, maxVersions: maxVersions) { version in
                        var numbered = programme
                        numbered.version = version
                        var text: [UInt8] = []
                        ProgrammeDocument.encode(numbered, into: &text)
                        return String(decoding: text, as: UTF8.self)
                    })
            } catch SessionStoreError.notFound {
                return .failure(.unknownProgramme)
            } catch SessionStoreError.ended {
                return .failure(.programmeEnded)
            } catch SessionStoreError.tooManyVersions(let limit) {
                return .failure(.tooManyProgrammeVersions(limit: limit))
            }
        }
        return try outcome.get()
    }

    /// The items with their exercises' versions pinned, each checked as a `start` of it would be: against the
    /// version the item names (`exerciseVersion`), else the exercise's current version, which is then pinned.
    /// - Throws: ``RESTError/invalidInput(_:)`` with `invalidProgramme` at the first bad item's field;
    ///   ``RESTError/storeUnavailable`` when a named version cannot be read.
    private func pinned(_ items: [Programme.Item], tenant: String) async throws(RESTError) -> [Programme.Item] {
        var pinned = items
        for index in items.indices {
            let pointer = JSONPointer([.member("items"), .index(index)])
            let exercise = try await self.exercise(of: items[index], tenant: tenant, at: pointer)
            if exercise.kind == .rep, items[index].prescription.holdSeconds != nil {
                throw .invalidInput(
                    ProgrammeDocument.invalid(
                        "holdSeconds is for hold exercises; \(exercise.id) counts reps",
                        at: pointer.appending("prescription"), "holdSeconds"))
            }
            do {
                _ = try SessionCore.engine(for: items[index].start, exercise: exercise)
            } catch {
                throw .invalidInput(Self.refusal(error, of: pointer))
            }
            pinned[index].exerciseVersion = exercise.version
        }
        return pinned
    }

    /// The exercise an item is checked against and pinned to: the tenant's exercise at the version the item names,
    /// or at its current version when it names none. The exercise must exist now; a built-in one has only the
    /// catalog's version.
    /// - Throws: ``RESTError/invalidInput(_:)`` at the item's `exercise` or `exerciseVersion`;
    ///   ``RESTError/storeUnavailable``.
    private func exercise(
        of item: Programme.Item, tenant: String, at pointer: JSONPointer
    ) async throws(RESTError) -> Exercise {
        guard let current = context.exercises.exercise(item.exercise, tenant: tenant) else {
            throw .invalidInput(ProgrammeDocument.invalid("no exercise '\(item.exercise)'", at: pointer, "exercise"))
        }
        guard item.exerciseVersion != 0, item.exerciseVersion != current.version else { return current }
        var named: Exercise?
        if Exercise.named(item.exercise) == nil {
            do {
                named = try await ProgrammeStart.custom(
                    item.exercise, version: item.exerciseVersion, tenant: tenant, context: context)
            } catch {
                throw .storeUnavailable
            }
        }
        guard let named else {
            throw .invalidInput(
                ProgrammeDocument.invalid(
                    "exercise '\(item.exercise)' has no version \(item.exerciseVersion) (its current one is "
                        + "\(current.version))", at: pointer, "exerciseVersion"))
        }
        return named
    }

    /// The `invalidProgramme` error for an item whose `start` the engine refuses: at its `side` for a missing side,
    /// else at a prescription member the engine names among its reasons (`/target: …`), or the prescription.
    private static func refusal(_ error: WireError, of item: JSONPointer) -> WireError {
        guard error.code != .missingSide else { return ProgrammeDocument.invalid(error.message, at: item, "side") }
        let prescription = item.appending("prescription")
        // The engine lists every problem ("/thresholds/enter: …; /target: …"); thresholds out of order follow from a
        // target the item gives, as an item gives no thresholds, so a named member of the prescription comes first.
        let reasons = "; " + error.message
        let named = ["target", "holdSeconds", "reps", "sets"].first { reasons.contains("; /\($0):") }
        return ProgrammeDocument.invalid(error.message, at: prescription, named)
    }

    // MARK: Reads

    /// `GET /v1/programmes?subject=&active=&limit=&cursor=`: the tenant's programmes at their latest versions,
    /// newest first, `{"programmes":[…],"next":…}`.
    private func list(_ request: HTTPRequest, caller: Caller) async throws -> HTTPResponse {
        var query = ProgrammeQuery(tenant: caller.tenant)
        query.subject = request.query("subject")
        // A patient code lists its own subject's programmes only: another subject's list is empty.
        let outside = caller.subject.map { own in query.subject.map { $0 != own } ?? false } ?? false
        if let own = caller.subject { query.subject = own }
        query.cursor = request.query("cursor").flatMap { $0.isEmpty ? nil : $0 }
        switch request.query("active") {
        case nil: break
        case "true": query.active = true
        case "false": query.active = false
        default: throw RESTError.invalidQuery("active must be true or false")
        }
        if let limit = try SessionRoutes.limit(of: request, maximum: ProgrammeQuery.maximumLimit) {
            query.limit = limit
        }
        let finalQuery = query
        let page =
            outside
            ? ProgrammePage(programmes: [], next: nil)
            : try await context.answer("listProgrammes") { try await context.store.programmes(finalQuery) }
        var body: [UInt8] = Array(#"{"programmes":["#.utf8)
        for (index, stored) in page.programmes.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            try Self.encode(stored, logger: context.logger, into: &body)
        }
        body += Array(#"],"next":"#.utf8)
        if let next = page.next { body.appendJSONString(next) } else { body += Array("null".utf8) }
        body.append(UInt8(ascii: "}"))
        return REST.json(body)
    }

    /// `GET /v1/programmes/{id}`: the latest version, also of an ended programme (`endedAt` says when).
    private func get(_ request: HTTPRequest, caller: Caller) async throws -> HTTPResponse {
        let stored = try await latest(request, tenant: caller.tenant)
        guard caller.reaches(subject: stored.subject) else { throw RESTError.unknownProgramme }
        return Self.json(stored)
    }

    /// The latest version of the programme the path names.
    /// - Throws: ``RESTError/unknownProgramme`` when the tenant has none with this id.
    private func latest(_ request: HTTPRequest, tenant: String) async throws(RESTError) -> StoredProgramme {
        guard let id = request.parameters["id"], SessionID(id) != nil else { throw .unknownProgramme }
        let stored = try await context.answer("getProgramme") {
            try await context.store.programme(id: id, tenant: tenant, version: nil)
        }
        guard let stored else { throw .unknownProgramme }
        return stored
    }

    // MARK: Adherence

    /// `GET /v1/subjects/{subject}/adherence?from=&to=&tz=&demo=`: per ISO week and programme item, the sessions
    /// prescribed, done and meeting their goal (``Adherence``). `from` and `to` are days (`YYYY-MM-DD`, both
    /// included; default: the 12 weeks to today), `tz` an IANA zone (default `UTC`), `demo=include` counts
    /// demonstrations too.
    private func adherence(_ request: HTTPRequest, caller: Caller) async throws -> HTTPResponse {
        let subject = try SessionRoutes.subject(of: request)
        let zoneName = request.query("tz") ?? "UTC"
        let zone: TimeZoneRules
        do throws(TimeZoneDatabase.LookupError) {
            zone = try context.timeZones.zone(named: zoneName)
        } catch {
            switch error {
            case .invalidName, .unknownZone: break
            // A zone file that exists but does not read says something of the system: worth a line in the log.
            case .unreadable, .tooLarge, .malformed:
                context.logger.log(.warning, "time zone file not read", ["zone": zoneName, "error": "\(error)"])
            }
            throw RESTError.invalidQuery("tz must be an IANA time zone, e.g. Europe/Madrid")
        }
        let today = Adherence.day(ofMilliseconds: context.clock(), zone: zone)
        let to = try Self.day("to", of: request, zone: zone) ?? today
        let from =
            try Self.day("from", of: request, zone: zone)
            ?? CivilDate(daysSinceEpoch: to.daysSinceEpoch - 7 * 11 - 6)
        guard from.daysSinceEpoch <= to.daysSinceEpoch else { throw RESTError.invalidQuery("from is after to") }
        guard to.daysSinceEpoch - from.daysSinceEpoch < 7 * Adherence.maxWeeks else {
            throw RESTError.invalidQuery("at most \(Adherence.maxWeeks) weeks at once")
        }
        let includesDemo = try SessionRoutes.includesDemo(request)
        let programmes = try await subjectProgrammes(subject, tenant: caller.tenant)
        var query = ProgressQuery(tenant: caller.tenant, subject: subject)
        query.from = Adherence.start(of: CivilDate(daysSinceEpoch: from.daysSinceEpoch - 7), zone: zone)
        query.to = Adherence.start(of: CivilDate(daysSinceEpoch: to.daysSinceEpoch + 8), zone: zone)
        query.includesDemo = includesDemo
        var sessions: [ProgressEntry] = []
        repeat {
            let page = query
            let answer = try await context.answer("progress") { try await context.store.progress(page) }
            sessions += answer.entries
            query.cursor = answer.next
        } while query.cursor != nil
        let lastMonday = to.daysSinceEpoch - Adherence.weekday(of: to)
        let computed = Adherence(
            programmes: programmes, sessions: sessions,
            from: CivilDate(daysSinceEpoch: from.daysSinceEpoch - Adherence.weekday(of: from)),
            to: CivilDate(daysSinceEpoch: lastMonday), zone: zone)
        var body: [UInt8] = []
        computed.encode(subject: subject, timeZone: zoneName, into: &body)
        return REST.json(body)
    }

    /// Every programme of `subject` at its latest version, with when it was ended.
    private func subjectProgrammes(
        _ subject: String, tenant: String
    ) async throws(RESTError) -> [(programme: Programme, endedAt: Int64?)] {
        var query = ProgrammeQuery(tenant: tenant, subject: subject, limit: ProgrammeQuery.maximumLimit)
        var programmes: [(programme: Programme, endedAt: Int64?)] = []
        repeat {
            let page = query
            let answer = try await context.answer("listProgrammes") { try await context.store.programmes(page) }
            for stored in answer.programmes {
                guard let programme = try? ProgrammeDocument.decodeStored(stored.definition) else {
                    context.logger.log(.error, "stored programme does not decode", ["programme": stored.id])
                    throw .storeUnavailable
                }
                programmes.append((programme, stored.endedAt))
            }
            query.cursor = answer.next
        } while query.cursor != nil
        return programmes.reversed()
    }

    /// A day of the query: `YYYY-MM-DD`, or an instant as `GET /v1/sessions` takes one (ISO-8601 with a time, Unix
    /// seconds), whose day in `zone` counts; nil when absent.
    /// - Throws: ``RESTError/invalidQuery(_:)`` for anything else.
    private static func day(
        _ name: String, of request: HTTPRequest, zone: TimeZoneRules
    ) throws(RESTError) -> CivilDate? {
        guard let text = request.query(name) else { return nil }
        if let day = CivilDate(iso: text) { return day }
        guard let instant = TimeParsing.unixMilliseconds(text) else {
            throw .invalidQuery("\(name) must be a day, YYYY-MM-DD, or an ISO-8601 time")
        }
        return Adherence.day(ofMilliseconds: instant, zone: zone)
    }

    // MARK: Encoding

    private static func json(_ stored: StoredProgramme, status: HTTPStatus = .ok) -> HTTPResponse {
        var body: [UInt8] = []
        // A stored text that no longer reads is answered as what it is: the text the server wrote.
        (try? encode(stored, logger: nil, into: &body)) ?? body.append(contentsOf: Array(stored.definition.utf8))
        return REST.json(body, status: status)
    }

    /// Writes a stored programme with its times.
    /// - Throws: ``RESTError/storeUnavailable`` for a stored text that no longer reads (logged).
    static func encode(_ stored: StoredProgramme, logger: Logger?, into body: inout [UInt8]) throws(RESTError) {
        do {
            let programme = try ProgrammeDocument.decodeStored(stored.definition)
            ProgrammeDocument.encode(
                programme, createdAt: Double(stored.createdAt) / 1000,
                endedAt: stored.endedAt.map { Double($0) / 1000 }, into: &body)
        } catch {
            logger?.log(.error, "stored programme does not decode", ["programme": stored.id, "error": "\(error)"])
            throw .storeUnavailable
        }
    }
}

extension Programme.Item {
    /// The `start` a session of this item makes (docs/protocol.md §5.3): its exercise, side and prescription.
    var start: StartRequest {
        StartRequest(
            exercise: exercise, side: side, options: StartRequest.Options(prescription: prescription))
    }
}
