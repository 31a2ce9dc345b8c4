import HTTPServer
import HTTPWire
import MotionWire
import SessionStore

/// Patient codes (docs/protocol.md §6.1): a tenant makes, lists and revokes codes that reach one subject's data only.
///
/// A code is 32 random bytes in base64url (256 bits), shown once, in the answer that makes it; the store and this
/// node keep its SHA-256 (``PatientCodes``). Revoking a code refuses it at once on this node and closes the live
/// sessions it runs here with 1008.
struct AccessRoutes {
    let context: AppContext

    /// How long a code works unless the body says otherwise: 30 days.
    static let defaultSeconds = 30 * 86_400
    /// The longest life a body may ask for: 365 days.
    static let maxSeconds = 365 * 86_400
    /// The most working codes of one subject: 20.
    static let maxPerSubject = 20

    func add(to router: inout Router) {
        router.callerRoutes { routes in
            routes.post("/v1/subjects/{subject}/access", patient: .refused, handler: create)
            routes.get("/v1/subjects/{subject}/access", patient: .refused, handler: list)
            routes.delete("/v1/subjects/{subject}/access/{id}", patient: .refused, handler: revoke)
        }
    }

    /// `POST /v1/subjects/{subject}/access` with an optional body `{"expiresInSeconds":…}` (60…31,536,000; default
    /// 30 days): `201 {"id","code","subject","createdAt","expiresAt"}`.
    private func create(_ request: HTTPRequest, caller: Caller) async throws -> HTTPResponse {
        let subject = try SessionRoutes.subject(of: request)
        guard !subject.isEmpty else { throw RESTError.invalidQuery("subject must not be empty") }
        var seconds = Self.defaultSeconds
        if !request.body.isEmpty {
            _ = try REST.bodyIsNDJSON(request, allowingNDJSON: false)
            seconds = try AccessRequest.expiresInSeconds(request.body, range: 60...Self.maxSeconds) ?? seconds
        }
        let now = context.clock()
        let code = ResumeToken.generate()
        let record = StoredAccessCode(
            id: SessionID.generate(at: now).description, tenant: caller.tenant, subject: subject,
            digest: ResumeToken.digest(of: code), createdAt: now, expiresAt: now + Int64(seconds) * 1000)
        let outcome: Result<Void, RESTError> = try await context.answer("createAccessCode", writes: true) {
            do {
                try await context.store.createAccessCode(record, maxPerSubject: Self.maxPerSubject)
                return .success(())
            } catch SessionStoreError.tooManyVersions(let limit) {
                return .failure(.tooManyAccessCodes(limit: limit))
            }
        }
        try outcome.get()
        context.patientCodes.stored(record)
        var body: [UInt8] = []
        Self.encode(record, code: code, into: &body)
        var response = REST.json(body, status: .created)
        response.headers.add(name: "Location", value: "/v1/subjects/\(subject)/access/\(record.id)")
        return response
    }

    /// `GET /v1/subjects/{subject}/access`: the subject's codes without their secret, oldest first.
    private func list(_ request: HTTPRequest, caller: Caller) async throws -> HTTPResponse {
        let subject = try SessionRoutes.subject(of: request)
        let codes = try await context.answer("listAccessCodes") {
            try await context.store.accessCodes(tenant: caller.tenant, subject: subject)
        }
        var body: [UInt8] = Array(#"{"codes":["#.utf8)
        for (index, code) in codes.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            Self.encode(code, code: nil, into: &body)
        }
        body += Array("]}".utf8)
        return REST.json(body)
    }

    /// `DELETE /v1/subjects/{subject}/access/{id}`: `204`; the code is refused from now on and the live sessions it
    /// runs on this node are closed with 1008. `404` for a code the subject does not have, or one already revoked.
    private func revoke(_ request: HTTPRequest, caller: Caller) async throws -> HTTPResponse {
        let subject = try SessionRoutes.subject(of: request)
        let id = request.parameters["id"] ?? ""
        guard SessionID(id) != nil else { throw RESTError.notFound }
        let revoked = try await context.answer("revokeAccessCode", writes: true) {
            try await context.store.revokeAccessCode(id: id, tenant: caller.tenant, subject: subject)
        }
        guard let revoked else { throw RESTError.notFound }
        context.patientCodes.stored(revoked)
        for holder in context.live.holders(ofCode: id) {
            holder.socket.close(code: .policyViolation, reason: "access revoked")
        }
        return HTTPResponse(status: .noContent)
    }

    /// `{"id","code","subject","createdAt","expiresAt","revokedAt"}`; `code` only when it is made, `revokedAt` `null`
    /// while it works.
    private static func encode(_ record: StoredAccessCode, code: String?, into body: inout [UInt8]) {
        body += Array(#"{"id":"#.utf8)
        body.appendJSONString(record.id)
        if let code {
            body += Array(#","code":"#.utf8)
            body.appendJSONString(code)
        }
        body += Array(#","subject":"#.utf8)
        body.appendJSONString(record.subject)
        body += Array(#","createdAt":"#.utf8)
        WireEncoder.appendTimestamp(milliseconds: record.createdAt, into: &body)
        body += Array(#","expiresAt":"#.utf8)
        WireEncoder.appendTimestamp(milliseconds: record.expiresAt, into: &body)
        body += Array(#","revokedAt":"#.utf8)
        WireEncoder.appendTimestamp(milliseconds: record.revokedAt, into: &body)
        body.append(UInt8(ascii: "}"))
    }
}
