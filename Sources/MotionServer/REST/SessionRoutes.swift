import HTTPServer
import HTTPWire
import MotionCore
import MotionWire
import SessionStore

/// The REST endpoints of docs/protocol.md §5 over the session store and the HTTP-driven sessions (the exercises are
/// ``ExerciseRoutes``).
struct SessionRoutes {
    let context: AppContext

    func add(to router: inout Router) {
        router.callerRoutes { routes in
            routes.post("/v1/sessions", patient: .scoped, handler: create)
            routes.get("/v1/sessions", patient: .scoped, handler: list)
            routes.get("/v1/sessions/{id}", patient: .scoped, handler: get)
            routes.delete("/v1/sessions/{id}", patient: .refused, handler: delete)
            routes.get("/v1/sessions/{id}/series", patient: .scoped, handler: series)
            routes.get("/v1/subjects/{subject}/progress", patient: .ownSubject, handler: progress)
            routes.post("/v1/sessions/{id}/poses", patient: .scoped, handler: poses)
            routes.post("/v1/sessions/{id}/motion", patient: .scoped, handler: motion)
            routes.get("/v1/sessions/{id}/motion", patient: .scoped, handler: motionSeries)
            routes.post("/v1/sessions/{id}/stop", patient: .scoped, handler: stop)
            routes.post("/v1/analyze", patient: .scoped, handler: analyze)
        }
    }

    // MARK: HTTP-driven sessions

    private func create(_ request: HTTPRequest, caller: Caller) async throws -> HTTPResponse {
        _ = try REST.bodyIsNDJSON(request, allowingNDJSON: false)
        let limits = context.limits.wireLimits
        let start = try StartRequest(decoding: request.body, limits: limits)
        let now = context.clock()
        let core = try await Self.session(for: start, caller: caller, now: now, context: context)
        let session = HTTPDrivenSession(core: core, now: now, cluster: context.cluster, limits: limits)
        switch context.httpSessions.insert(session) {
        case .admitted: break
        case .tenantFull: throw RESTError.tooManySessions(limit: context.limits.maxHTTPSessionsPerTenant)
        case .serverFull: throw RESTError.serverBusy
        }
        guard await context.storeNew(core.newRecord) else {
            context.httpSessions.remove(core.id)
            throw RESTError.storeUnavailable
        }
        var body: [UInt8] = []
        WireEncoder.encodeCreated(id: core.id.description, into: &body)
        var response = REST.json(body, status: .created)
        response.headers.add(name: "Location", value: "/v1/sessions/\(core.id)")
        return response
    }

    private func poses(_ request: HTTPRequest, caller: Caller) async throws -> HTTPResponse {
        let session = try await open(request, caller: caller)
        let ndjson = try REST.bodyIsNDJSON(request, allowingNDJSON: true)
        return REST.json(try await session.post(request.body, ndjson: ndjson, context: context))
    }

    /// `POST /v1/sessions/{id}/motion`: the phone's motion samples for an open HTTP session (docs/protocol.md §3.3).
    private func motion(_ request: HTTPRequest, caller: Caller) async throws -> HTTPResponse {
        let session = try await open(request, caller: caller)
        _ = try REST.bodyIsNDJSON(request, allowingNDJSON: false)
        return REST.json(try await session.postMotion(request.body, context: context))
    }

    private func stop(_ request: HTTPRequest, caller: Caller) async throws -> HTTPResponse {
        let session = try await open(request, caller: caller)
        // A summary that could not be stored leaves the session open: the client may try `stop` again. The failed
        // write has been counted where it was made.
        guard let body = await session.stop(status: .finished, context: context) else {
            throw RESTError.storeUnavailable
        }
        context.httpSessions.remove(session.id)
        return REST.json(body)
    }

    /// The open HTTP session the path names, if the caller reaches it.
    /// - Throws: ``RESTError/notFound`` for none (or another subject's, for a patient code); ``RESTError/notLive``
    ///   for a stored session that is not an open HTTP session on this node (finished, or a WebSocket session);
    ///   ``RESTError/storeUnavailable`` when the store cannot say.
    private func open(_ request: HTTPRequest, caller: Caller) async throws(RESTError) -> HTTPDrivenSession {
        if let id = request.sessionID, let session = context.httpSessions.session(id, tenant: caller.tenant) {
            guard caller.reaches(subject: session.subject) else { throw .notFound }
            return session
        }
        throw try await stored(request, caller: caller) == nil ? .notFound : .notLive
    }

    private func analyze(_ request: HTTPRequest, caller: Caller) async throws -> HTTPResponse {
        _ = try REST.bodyIsNDJSON(request, allowingNDJSON: false)
        let limits = context.limits.wireLimits
        let start = try StartRequest(decoding: request.body, limits: limits)
        let now = context.clock()
        var core = try await Self.session(for: start, caller: caller, now: now, context: context)
        var unknownJoint = UnknownJointNotice()
        let decoder = PoseDecoder(start, limits: limits)
        let frames = try decoder.decodeFrames(request.body, report: &unknownJoint.report)
        let samples = try MotionDecoder(limits: decoder.limits).decodeRecordingSamples(request.body)
        var outcome = core.process(frames, samples: samples, metrics: context.metrics)
        // The recording ends here: a hold under way at its last pose ends with it.
        outcome.events += core.end(metrics: context.metrics)
        if let notice = unknownJoint.take() { outcome.errors.insert((nil, notice), at: 0) }
        var record = core.newRecord
        record.status = .finished
        record.endedAt = context.clock()
        record.summary = core.engine.summary
        let stored = record
        guard await context.storeNew(stored) else { throw RESTError.storeUnavailable }
        var body: [UInt8] = []
        WireEncoder.encodeAnalysis(
            events: outcome.events, summary: stored.summary,
            metadata: core.metadata(status: .finished, endedAt: stored.endedAt), errors: outcome.errors,
            motionErrors: outcome.motionErrors, into: &body)
        return REST.json(body)
    }

    /// The session of a `start` body: a programme item's (``ProgrammeStart``) or an exercise's.
    static func session(
        for start: StartRequest, caller: Caller, now: Int64, context: AppContext
    ) async throws(WireError) -> SessionCore {
        if let resolved = try await ProgrammeStart.resolve(start, caller: caller, context: context) {
            return try SessionCore(start: resolved.start, tenant: caller.tenant, now: now, exercise: resolved.exercise)
        }
        return try SessionCore(start: start, tenant: caller.tenant, now: now, exercises: context.exercises)
    }

    // MARK: History

    private func list(_ request: HTTPRequest, caller: Caller) async throws -> HTTPResponse {
        var query = SessionQuery(tenant: caller.tenant)
        query.subject = request.query("subject")
        query.subjectPrefix = request.query("subjectPrefix").flatMap { $0.isEmpty ? nil : $0 }
        if let own = caller.subject {
            // A patient code lists its own subject's sessions only: another subject, or a prefix of none of its
            // subject, filters to nothing.
            if query.subject.map({ $0 != own }) ?? false || query.subjectPrefix.map({ !own.hasPrefix($0) }) ?? false {
                query.subject = "\u{0}"
            } else {
                query.subject = own
            }
            query.subjectPrefix = nil
        }
        query.exercise = request.query("exercise")
        query.cursor = request.query("cursor").flatMap { $0.isEmpty ? nil : $0 }
        if let status = request.query("status") {
            guard let value = SessionStatus(rawValue: status) else {
                throw RESTError.invalidQuery("status must be live, finished or abandoned")
            }
            query.status = value
        }
        (query.from, query.to) = try Self.window(of: request)
        if let limit = try Self.limit(of: request, maximum: SessionQuery.maximumLimit) { query.limit = limit }
        let wantsTotal = try Self.flag("total", of: request)
        let finalQuery = query
        let page = try await store("list") { try await context.store.list(finalQuery) }
        // Counting reads every matching index entry, so only a caller that shows the total pays for it.
        let total = wantsTotal ? try await store("count") { try await context.store.count(finalQuery) } : nil
        var body: [UInt8] = []
        // About 0.5 KiB a summary without reps and 0.2 KiB a rep, a rendered one's length and its head: one
        // allocation rather than a dozen doublings.
        body.reserveCapacity(
            page.entries.reduce(64) { total, entry in
                switch entry {
                case .read(let session): total + 544 + session.summary.reps.count * 224
                case .rendered(let session): total + 224 + session.summary.count
                }
            })
        // Only live sessions have a `connected` flag, and a live session is never rendered.
        let connected = await context.connectedFlags(page.sessions, tenant: caller.tenant)
        // By index: each summary is encoded in place, not copied out of the page first.
        WireEncoder.encodeSessionPage(count: page.entries.count, next: page.next, total: total, into: &body) {
            index, body in
            switch page.entries[index] {
            case .read(let session): Self.encode(session, connected: connected[session.id], into: &body)
            case .rendered(let session): Self.encode(session, into: &body)
            }
        }
        return REST.json(body)
    }

    /// `GET /v1/subjects/{subject}/progress?exercise=&from=&to=&limit=&cursor=`: the subject's latest sessions in
    /// the window (at most `limit`, default and most ``ProgressQuery/maximumLimit``), oldest first, with the cursor
    /// of the older ones left out. The subject is refused as `start` refuses it; an unknown one has no sessions.
    private func progress(_ request: HTTPRequest, caller: Caller) async throws -> HTTPResponse {
        var query = ProgressQuery(tenant: caller.tenant, subject: try Self.subject(of: request))
        query.includesDemo = try Self.includesDemo(request)
        query.exercise = request.query("exercise")
        query.cursor = request.query("cursor").flatMap { $0.isEmpty ? nil : $0 }
        (query.from, query.to) = try Self.window(of: request)
        if let limit = try Self.limit(of: request, maximum: ProgressQuery.maximumLimit) { query.limit = limit }
        let finalQuery = query
        let page = try await store("progress") { try await context.store.progress(finalQuery) }
        var body: [UInt8] = []
        body.reserveCapacity(64 + page.entries.count * 192)
        WireEncoder.encodeProgress(page.entries, next: page.next, into: &body)
        return REST.json(body)
    }

    /// The `{subject}` of the path, checked as `start` checks a subject.
    /// - Throws: ``RESTError/invalidQuery(_:)`` for one `start` would refuse.
    static func subject(of request: HTTPRequest) throws(RESTError) -> String {
        let subject = request.parameters["subject"] ?? ""
        if let violation = StartRequest.subjectRule.violation(in: subject) {
            throw .invalidQuery(StartRequest.subjectRule.message(for: violation, field: "subject"))
        }
        return subject
    }

    /// Whether `demo=include` asks for demonstrations too (docs/protocol.md §5.3); `demo=exclude` or none leaves
    /// them out.
    /// - Throws: ``RESTError/invalidQuery(_:)`` for another value.
    static func includesDemo(_ request: HTTPRequest) throws(RESTError) -> Bool {
        switch request.query("demo") {
        case nil, "exclude": return false
        case "include": return true
        default: throw .invalidQuery("demo must be include or exclude")
        }
    }

    /// The `from` and `to` query values, Unix milliseconds.
    /// - Throws: ``RESTError/invalidQuery(_:)`` for a value that is neither ISO-8601 UTC nor Unix seconds.
    static func window(of request: HTTPRequest) throws(RESTError) -> (from: Int64?, to: Int64?) {
        var bounds: [Int64?] = []
        for name in ["from", "to"] {
            guard let text = request.query(name) else {
                bounds.append(nil)
                continue
            }
            guard let value = TimeParsing.unixMilliseconds(text) else {
                throw .invalidQuery("\(name) must be ISO-8601 UTC or Unix seconds")
            }
            bounds.append(value)
        }
        return (bounds[0], bounds[1])
    }

    /// A yes-or-no query value: `true` or `false`, false when absent.
    /// - Throws: ``RESTError/invalidQuery(_:)`` for anything else (`1`, `yes`, an empty value, another case).
    private static func flag(_ name: String, of request: HTTPRequest) throws(RESTError) -> Bool {
        switch request.query(name) {
        case nil, "false": return false
        case "true": return true
        default: throw .invalidQuery("\(name) must be true or false")
        }
    }

    /// The `limit` query value, nil when absent.
    /// - Throws: ``RESTError/invalidQuery(_:)`` for anything but a whole number within `1…maximum`.
    static func limit(of request: HTTPRequest, maximum: Int) throws(RESTError) -> Int? {
        guard let text = request.query("limit") else { return nil }
        guard let limit = Int(text), (1...maximum).contains(limit) else {
            throw .invalidQuery("limit must be 1…\(maximum)")
        }
        return limit
    }

    private func get(_ request: HTTPRequest, caller: Caller) async throws -> HTTPResponse {
        guard let session = try await stored(request, caller: caller) else { throw RESTError.notFound }
        let wantsCSV =
            request.query("format") == "csv"
            || (request.headers["Accept"]?.lowercased().contains("text/csv") ?? false)
        var body: [UInt8] = []
        guard wantsCSV else {
            let connected = await context.connectedFlags([session], tenant: caller.tenant)
            Self.encode(session, connected: connected[session.id], into: &body)
            return REST.json(body)
        }
        WireEncoder.encodeRepsCSV(session.summary.reps, holds: session.summary.holds, into: &body)
        return HTTPResponse(
            status: .ok,
            headers: [
                "Content-Type": "text/csv; charset=utf-8",
                "Content-Disposition": #"attachment; filename="session-\#(session.id).csv""#,
            ], body: .bytes(body))
    }

    private func series(_ request: HTTPRequest, caller: Caller) async throws -> HTTPResponse {
        try await chart(
            request, "series", caller: caller, read: { try await context.store.series(id: $0, tenant: caller.tenant) },
            encode: { WireEncoder.encodeSeries($0, into: &$1) })
    }

    /// `GET /v1/sessions/{id}/motion`: the stored motion series (docs/protocol.md §5.2), empty without motion samples.
    private func motionSeries(_ request: HTTPRequest, caller: Caller) async throws -> HTTPResponse {
        try await chart(
            request, "motion", caller: caller, read: { try await context.store.motion(id: $0, tenant: caller.tenant) },
            encode: { WireEncoder.encodeMotionSeries($0, into: &$1) })
    }

    /// One of a stored session's series as JSON: 404 when the path names no session of the tenant.
    private func chart<Series: Sendable>(
        _ request: HTTPRequest, _ operation: String, caller: Caller, read: (SessionID) async throws -> Series?,
        encode: (Series, inout [UInt8]) -> Void
    ) async throws -> HTTPResponse {
        guard let id = request.sessionID else { throw RESTError.notFound }
        // A patient code reaches its own subject's sessions only: the series' session is read first.
        if caller.isPatient, try await stored(request, caller: caller) == nil { throw RESTError.notFound }
        guard let series = try await store(operation, { try await read(id) }) else { throw RESTError.notFound }
        var body: [UInt8] = []
        encode(series, &body)
        return REST.json(body)
    }

    private func delete(_ request: HTTPRequest, caller: Caller) async throws -> HTTPResponse {
        guard let id = request.sessionID else { throw RESTError.notFound }
        // A live session is refused here and, whichever node runs it, by the store's delete itself.
        if context.live.session(id, tenant: caller.tenant) != nil
            || context.httpSessions.session(id, tenant: caller.tenant) != nil
        {
            throw RESTError.sessionLive
        }
        let deleted = try await store("delete", writes: true) {
            try await context.store.delete(id: id, tenant: caller.tenant)
        }
        guard deleted else { throw RESTError.notFound }
        return HTTPResponse(status: .noContent)
    }

    /// The stored session the path names; nil when there is none (or the id is not one).
    /// - Throws: ``RESTError/storeUnavailable`` when the store fails.
    private func stored(_ request: HTTPRequest, caller: Caller) async throws(RESTError) -> StoredSession? {
        guard let id = request.sessionID else { return nil }
        let session = try await store("get") { try await context.store.session(id: id, tenant: caller.tenant) }
        return session.flatMap { caller.reaches(subject: $0.subject) ? $0 : nil }
    }

    /// Runs a store call for the answer (``AppContext/answer(_:writes:_:)``).
    private func store<T: Sendable>(
        _ operation: String, writes: Bool = false, _ call: () async throws -> T
    ) async throws(RESTError) -> T {
        try await context.answer(operation, writes: writes, call)
    }

    /// A stored session as docs/protocol.md §5's summary object.
    /// - Parameters:
    ///   - session: The stored session.
    ///   - connected: Whether a client is attached (``AppContext/connectedFlags(_:tenant:)``).
    ///   - body: The buffer to append to.
    /// Writes an ended session whose summary the store kept rendered (``SummaryRendering/wire``): the same bytes as
    /// ``encode(_:connected:into:)`` writes for it read whole.
    static func encode(_ session: RenderedSession, into body: inout [UInt8]) {
        let metadata = SummaryMetadata(
            id: session.id.description, subject: session.subject, status: SummaryMetadata.Status(session.status),
            startedAt: Double(session.startedAt) / 1000, endedAt: session.endedAt.map { Double($0) / 1000 },
            programme: session.programme, demo: session.demo)
        WireEncoder.encodeSummary(
            measures: session.summary, exercise: session.exercise, side: session.side, metadata: metadata, into: &body)
    }

    static func encode(_ session: StoredSession, connected: Bool?, into body: inout [UInt8]) {
        let metadata = SummaryMetadata(
            id: session.id.description, subject: session.subject, status: SummaryMetadata.Status(session.status),
            startedAt: Double(session.startedAt) / 1000, endedAt: session.endedAt.map { Double($0) / 1000 },
            connected: connected, programme: session.programme, demo: session.demo)
        WireEncoder.encodeSummary(session.summary, metadata: metadata, into: &body)
    }
}

extension AppContext {
    /// Whether a client is attached to each live session (docs/protocol.md §3.1, `connected`): true while a node runs it
    /// with its connection open (or as an HTTP session), false while it waits for a resume. This node answers for
    /// the sessions it runs; the others' holders wrote theirs in the store. Ended sessions have none.
    func connectedFlags(_ sessions: [StoredSession], tenant: String) async -> [SessionID: Bool] {
        var flags: [SessionID: Bool] = [:]
        var elsewhere: [SessionID] = []
        for session in sessions where session.status == .live {
            if let connected = live.isConnected(session.id) {
                flags[session.id] = connected
            } else if httpSessions.session(session.id, tenant: session.tenant) != nil {
                flags[session.id] = true
            } else {
                flags[session.id] = false
                elsewhere.append(session.id)
            }
        }
        guard cluster.hasPeers, !elsewhere.isEmpty else { return flags }
        do {
            let stored = try await timed("connected") { try await store.connected(elsewhere, tenant: tenant) }
            flags.merge(stored) { _, stored in stored }
        } catch {
            // The listing is answered without them: those sessions read `connected: false` until the store answers.
            metrics.storeFailed("connected")
            logger.log(.warning, "store call failed", ["operation": "connected", "error": "\(error)"])
        }
        return flags
    }
}

extension HTTPRequest {
    /// The `{id}` path parameter as a session id; nil when it is not one (which answers 404, like an unknown id).
    var sessionID: SessionID? { parameters["id"].flatMap { SessionID($0) } }
}

extension SummaryRendering {
    /// Ended sessions' summaries kept as REST lists them: their measures
    /// (``WireEncoder/encodeSummaryMeasures(_:into:)``), versioned by ``WireEncoder/summaryMeasuresVersion``.
    static let wire = SummaryRendering(version: WireEncoder.summaryMeasuresVersion) { summary in
        var bytes: [UInt8] = []
        bytes.reserveCapacity(320 + summary.reps.count * 224)
        WireEncoder.encodeSummaryMeasures(summary, into: &bytes)
        return bytes
    }
}
