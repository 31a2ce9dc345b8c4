import HTTPServer
import HTTPWire
import MotionWire
import SessionStore

/// `GET /v1/subjects?prefix=&limit=&cursor=` (docs/protocol.md §5.2): the tenant's subjects that have sessions, for
/// pickers and patient lists, `{"subjects":[{"subject","sessions","lastSessionAt"}…],"next":…}` in byte order.
struct SubjectRoutes {
    let context: AppContext

    func add(to router: inout Router) {
        router.callerRoutes { routes in
            routes.get("/v1/subjects", patient: .scoped, handler: list)
        }
    }

    private func list(_ request: HTTPRequest, caller: Caller) async throws -> HTTPResponse {
        let prefix = request.query("prefix") ?? ""
        guard prefix.utf8.count <= StartRequest.maxSubjectBytes else {
            throw RESTError.invalidQuery("prefix is longer than a subject can be")
        }
        var query = SubjectQuery(tenant: caller.tenant, prefix: prefix)
        query.cursor = request.query("cursor").flatMap { $0.isEmpty ? nil : $0 }
        if let limit = try SessionRoutes.limit(of: request, maximum: SubjectQuery.maximumLimit) { query.limit = limit }
        // A patient code sees its own subject only, and only when the prefix names it.
        if let own = caller.subject {
            guard own.utf8.starts(with: prefix.utf8) else { return Self.json(SubjectPage(subjects: [], next: nil)) }
            query.prefix = own
        }
        let finalQuery = query
        var page = try await context.answer("listSubjects") { try await context.store.subjects(finalQuery) }
        if let own = caller.subject {
            page = SubjectPage(subjects: page.subjects.filter { $0.subject == own }, next: nil)
        }
        return Self.json(page)
    }

    private static func json(_ page: SubjectPage) -> HTTPResponse {
        var body: [UInt8] = []
        body.reserveCapacity(32 + page.subjects.count * 96)
        body.appendLiteral(#"{"subjects":["#)
        for (index, entry) in page.subjects.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.appendLiteral(#"{"subject":"#)
            body.appendJSONString(entry.subject)
            body.appendLiteral(#","sessions":"#)
            body.appendDecimal(entry.sessions)
            body.appendLiteral(#","lastSessionAt":"#)
            WireEncoder.appendTimestamp(milliseconds: entry.lastStartedAt, into: &body)
            body.append(UInt8(ascii: "}"))
        }
        body.appendLiteral(#"],"next":"#)
        if let next = page.next { body.appendJSONString(next) } else { body.appendLiteral("null") }
        body.append(UInt8(ascii: "}"))
        return REST.json(body)
    }
}
