import HTTPServer
import HTTPWire
import MotionCore
import MotionWire
import SessionStore

/// The REST endpoints of PROTOCOL.md §5 over the session store and the HTTP-driven sessions.
struct SessionRoutes {
    let context: AppContext

    func add(to router: inout Router) {
        router.get("/v1/exercises") { _ in exercises() }
        router.get("/v1/exercises/{id}") { request in exercise(request.parameters["id"] ?? "") }
        router.post("/v1/sessions", handler: tenanted(create))
        router.get("/v1/sessions", handler: tenanted(list))
        router.get("/v1/sessions/{id}", handler: tenanted(get))
        router.delete("/v1/sessions/{id}", handler: tenanted(delete))
        router.get("/v1/sessions/{id}/series", handler: tenanted(series))
        router.post("/v1/sessions/{id}/poses", handler: tenanted(poses))
        router.post("/v1/sessions/{id}/stop", handler: tenanted(stop))
        router.post("/v1/analyze", handler: tenanted(analyze))
    }

    /// A handler that runs only with the tenant authentication attached; without one it answers `401` (it cannot
    /// happen behind ``Authentication``, and a request never runs as an empty or a default tenant by mistake).
    private func tenanted(
        _ handler: @escaping @Sendable (HTTPRequest, String) async -> HTTPResponse
    ) -> Router.Handler {
        { request in
            guard let tenant = request.tenant else { return REST.unauthorized }
            return await handler(request, tenant)
        }
    }

    // MARK: Exercises

    private func exercises() -> HTTPResponse {
        var body: [UInt8] = []
        body.appendLiteral(#"{"exercises":["#)
        for (index, exercise) in Exercise.catalog.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            WireEncoder.encodeExercise(exercise, into: &body)
        }
        body.appendLiteral("]}")
        return REST.json(body)
    }

    private func exercise(_ id: String) -> HTTPResponse {
        guard let exercise = Exercise.named(id) else {
            return REST.error(.notFound, "unknownExercise", "no exercise '\(id)'")
        }
        var body: [UInt8] = []
        WireEncoder.encodeExercise(exercise, into: &body)
        return REST.json(body)
    }

    // MARK: HTTP-driven sessions

    private func create(_ request: HTTPRequest, tenant: String) async -> HTTPResponse {
        if let refusal = REST.bodyFormat(of: request, allowingNDJSON: false).refusal { return refusal }
        do {
            let start = try StartRequest(decoding: request.body)
            let now = context.clock()
            let core = try SessionCore(start: start, tenant: tenant, now: now)
            switch context.httpSessions.insert(HTTPSession(core: core, now: now)) {
            case .admitted: break
            case .tenantFull:
                return REST.error(
                    .tooManyRequests, "tooManySessions",
                    "at most \(context.limits.maxHTTPSessionsPerTenant) open HTTP sessions per tenant; stop one first")
            case .serverFull:
                return REST.error(.serviceUnavailable, "serverBusy", "too many open HTTP sessions; try again later")
            }
            do {
                try await context.timed("create") { try await context.store.create(core.newRecord) }
            } catch {
                context.httpSessions.remove(core.id)
                throw error
            }
            var body: [UInt8] = []
            body.appendLiteral(#"{"id":"#)
            body.appendJSONString(core.id.description)
            body.append(UInt8(ascii: "}"))
            var response = REST.json(body, status: .created)
            response.headers.add(name: "Location", value: "/v1/sessions/\(core.id)")
            return response
        } catch let error as WireError {
            return REST.error(error)
        } catch {
            return storeFailure("create", error)
        }
    }

    private func poses(_ request: HTTPRequest, tenant: String) async -> HTTPResponse {
        guard let id = request.sessionID, let session = context.httpSessions.session(id, tenant: tenant)
        else { return await notLive(request, tenant: tenant) }
        let (ndjson, refusal) = REST.bodyFormat(of: request, allowingNDJSON: true)
        if let refusal { return refusal }
        do {
            return REST.json(try await session.post(request.body, ndjson: ndjson, context: context))
        } catch {
            return REST.error(error)
        }
    }

    private func stop(_ request: HTTPRequest, tenant: String) async -> HTTPResponse {
        guard let id = request.sessionID, let session = context.httpSessions.session(id, tenant: tenant)
        else { return await notLive(request, tenant: tenant) }
        // A summary that could not be stored leaves the session open: the client may try `stop` again.
        guard let body = await session.stop(status: .finished, context: context) else { return REST.storeUnavailable }
        context.httpSessions.remove(id)
        return REST.json(body)
    }

    /// 409 when the session exists but is not driven over HTTP on this node (finished, or a WebSocket session);
    /// 404 otherwise.
    private func notLive(_ request: HTTPRequest, tenant: String) async -> HTTPResponse {
        do {
            guard try await stored(request, tenant: tenant) != nil else { return REST.notFound }
        } catch {
            return storeFailure("get", error)
        }
        return REST.error(.conflict, "notLive", "the session is not an open HTTP session")
    }

    private func analyze(_ request: HTTPRequest, tenant: String) async -> HTTPResponse {
        if let refusal = REST.bodyFormat(of: request, allowingNDJSON: false).refusal { return refusal }
        do {
            let start = try StartRequest(decoding: request.body)
            let now = context.clock()
            var core = try SessionCore(start: start, tenant: tenant, now: now)
            var unknownJoint = UnknownJointNotice()
            let frames = try PoseDecoder(start).decodeFrames(request.body, report: &unknownJoint.report)
            var outcome = core.process(frames, metrics: context.metrics)
            if let notice = unknownJoint.take() { outcome.errors.insert((nil, notice), at: 0) }
            var record = core.newRecord
            record.status = .finished
            record.endedAt = context.clock()
            record.summary = core.engine.summary
            let stored = record
            try await context.timed("create") { try await context.store.create(stored) }
            var body: [UInt8] = []
            body.appendLiteral(#"{"events":"#)
            WireEncoder.encodeEvents(outcome.events, into: &body)
            body.appendLiteral(#","summary":"#)
            WireEncoder.encodeSummary(
                stored.summary, metadata: core.metadata(status: .finished, endedAt: stored.endedAt), into: &body)
            if !outcome.errors.isEmpty {
                body.appendLiteral(#","errors":"#)
                WireEncoder.encodeFrameErrors(outcome.errors, into: &body)
            }
            body.append(UInt8(ascii: "}"))
            return REST.json(body)
        } catch let error as WireError {
            return REST.error(error)
        } catch {
            return storeFailure("create", error)
        }
    }

    // MARK: History

    private func list(_ request: HTTPRequest, tenant: String) async -> HTTPResponse {
        var query = SessionQuery(tenant: tenant)
        query.subject = request.query("subject")
        query.exercise = request.query("exercise")
        query.cursor = request.query("cursor").flatMap { $0.isEmpty ? nil : $0 }
        if let status = request.query("status") {
            guard let value = SessionStatus(rawValue: status) else {
                return REST.error(.badRequest, "invalidQuery", "status must be live, finished or abandoned")
            }
            query.status = value
        }
        for (name, keyPath) in [("from", \SessionQuery.from), ("to", \SessionQuery.to)] {
            guard let text = request.query(name) else { continue }
            guard let value = TimeParsing.unixMilliseconds(text) else {
                return REST.error(.badRequest, "invalidQuery", "\(name) must be ISO-8601 UTC or Unix seconds")
            }
            query[keyPath: keyPath] = value
        }
        if let text = request.query("limit") {
            guard let limit = Int(text), (1...SessionQuery.maximumLimit).contains(limit) else {
                return REST.error(.badRequest, "invalidQuery", "limit must be 1…\(SessionQuery.maximumLimit)")
            }
            query.limit = limit
        }
        let page: SessionPage
        do {
            let finalQuery = query
            page = try await context.timed("list") { try await context.store.list(finalQuery) }
        } catch SessionStoreError.invalidCursor {
            return REST.error(.badRequest, "invalidCursor", "the cursor is not one this server issued")
        } catch {
            return storeFailure("list", error)
        }
        var body: [UInt8] = []
        // About 0.5 KiB a summary without reps: one allocation rather than a dozen doublings.
        body.reserveCapacity(64 + page.sessions.count * 512)
        body.appendLiteral(#"{"sessions":["#)
        // By index: each summary is encoded in place, not copied out of the page first.
        for index in page.sessions.indices {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            Self.encode(page.sessions[index], into: &body)
        }
        body.appendLiteral(#"],"next":"#)
        if let next = page.next { body.appendJSONString(next) } else { body.appendLiteral("null") }
        body.append(UInt8(ascii: "}"))
        return REST.json(body)
    }

    private func get(_ request: HTTPRequest, tenant: String) async -> HTTPResponse {
        let session: StoredSession
        do {
            guard let found = try await stored(request, tenant: tenant) else { return REST.notFound }
            session = found
        } catch {
            return storeFailure("get", error)
        }
        let wantsCSV =
            request.query("format") == "csv"
            || (request.headers["Accept"]?.lowercased().contains("text/csv") ?? false)
        guard wantsCSV else {
            var body: [UInt8] = []
            Self.encode(session, into: &body)
            return REST.json(body)
        }
        var csv = "index,peak,trough,start,end,duration,clean,faults\r\n"
        for rep in session.summary.reps {
            let faults = rep.faults.map(\.rawValue).joined(separator: ";")
            csv +=
                "\(rep.index),\(rep.peak),\(rep.trough),\(rep.start),\(rep.end),\(rep.duration),\(rep.isClean),\(faults)\r\n"
        }
        return HTTPResponse(
            status: .ok,
            headers: [
                "Content-Type": "text/csv; charset=utf-8",
                "Content-Disposition": #"attachment; filename="session-\#(session.id).csv""#,
            ], body: .bytes(Array(csv.utf8)))
    }

    private func series(_ request: HTTPRequest, tenant: String) async -> HTTPResponse {
        guard let id = request.sessionID else { return REST.notFound }
        let series: ValueSeries?
        do {
            series = try await context.timed("series") {
                try await context.store.series(id: id, tenant: tenant)
            }
        } catch {
            return storeFailure("series", error)
        }
        guard let series else { return REST.notFound }
        var body: [UInt8] = []
        body.appendLiteral(#"{"interval":"#)
        body.appendJSONNumber(series.interval)
        body.appendLiteral(#","t":["#)
        for (index, t) in series.times.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.appendJSONNumber(t)
        }
        body.appendLiteral(#"],"value":["#)
        for (index, value) in series.values.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.appendJSONNumber(value)
        }
        body.appendLiteral("]}")
        return REST.json(body)
    }

    private func delete(_ request: HTTPRequest, tenant: String) async -> HTTPResponse {
        guard let id = request.sessionID else { return REST.notFound }
        if context.live.session(id, tenant: tenant) != nil
            || context.httpSessions.session(id, tenant: tenant) != nil
        {
            return REST.error(.conflict, "sessionLive", "stop the session before deleting it")
        }
        do {
            let deleted = try await context.timed("delete") {
                try await context.store.delete(id: id, tenant: tenant)
            }
            return deleted ? HTTPResponse(status: .noContent) : REST.notFound
        } catch {
            return storeFailure("delete", error)
        }
    }

    /// The stored session the path names; nil when there is none (or the id is not one).
    /// - Throws: When the store fails.
    private func stored(_ request: HTTPRequest, tenant: String) async throws -> StoredSession? {
        guard let id = request.sessionID else { return nil }
        return try await context.timed("get") { try await context.store.session(id: id, tenant: tenant) }
    }

    private func storeFailure(_ operation: String, _ error: any Error) -> HTTPResponse {
        context.metrics.storeFailed(operation)
        context.logger.log(.error, "store call failed", ["operation": operation, "error": "\(error)"])
        return REST.storeUnavailable
    }

    /// A stored session as PROTOCOL.md §5's summary object.
    static func encode(_ session: StoredSession, into body: inout [UInt8]) {
        let metadata = SummaryMetadata(
            id: session.id.description, subject: session.subject, status: SummaryMetadata.Status(session.status),
            startedAt: Double(session.startedAt) / 1000, endedAt: session.endedAt.map { Double($0) / 1000 })
        WireEncoder.encodeSummary(session.summary, metadata: metadata, into: &body)
    }
}

extension HTTPRequest {
    /// The tenant the authentication middleware attached (`default` without tokens); nil only on the public
    /// routes, which never ask.
    var tenant: String? { attributes["tenant"] }

    /// The `{id}` path parameter as a session id; nil when it is not one (which answers 404, like an unknown id).
    var sessionID: SessionID? { parameters["id"].flatMap { SessionID($0) } }
}
