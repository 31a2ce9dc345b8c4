import HTTPServer
import HTTPWire
import MotionWire
import NetworkTestSupport
import Testing

@testable import MotionServer

/// What every route of a ``CallerRoutes`` group carries, with or without ``Authentication`` in front.
@Suite struct CallerRoutesTests {
    /// Attaches the caller the `X-Tenant` header names, as ``Authentication`` attaches the one a token grants.
    struct AttachCaller: HTTPMiddleware {
        func prepare(_ request: inout HTTPRequest) throws -> HTTPResponse? {
            if let tenant = request.headers["X-Tenant"] {
                request.context[Caller.self] = Caller(
                    tenant: tenant, role: request.headers["X-Operator"] == nil ? .tenant : .operator)
            }
            return nil
        }
    }

    static func router() -> Router {
        var router = Router()
        router.callerRoutes { routes in
            routes.get("/whoami", patient: .scoped) { _, caller in .text("\(caller.tenant) \(caller.role)") }
            routes.post("/refused", patient: .refused) { _, _ in
                throw WireError(code: .invalidExercise, message: "bad threshold", pointer: "/thresholds/enter")
            }
        }
        router.get("/open") { _ in .text("open") }
        return router
    }

    static let configuration = testConfiguration { $0.errorRenderer = REST.errorRenderer }

    @Test func handlersGetTheCallerTheMiddlewareAttached() async throws {
        try await withTestServer(Self.configuration, router: Self.router(), middleware: [AttachCaller()]) {
            address, _ in
            let tenant = try #require(try await request(address, "GET", "/whoami", headers: "X-Tenant: clinic-1\r\n"))
            #expect(tenant.text == "clinic-1 tenant")
            let both = "X-Tenant: clinic-2\r\nX-Operator: 1\r\n"
            #expect(try await request(address, "GET", "/whoami", headers: both)?.text == "clinic-2 operator")
            #expect(try await request(address, "GET", "/open")?.text == "open", "routes outside the group need none")
        }
    }

    /// A request that reaches a group's route without a caller never runs as anyone: `401`.
    @Test func aRequestWithoutACallerIsUnauthorized() async throws {
        try await withTestServer(Self.configuration, router: Self.router()) { address, _ in
            let response = try #require(try await request(address, "GET", "/whoami"))
            #expect(response.status == 401)
            #expect(response.text.contains(#""code":"unauthorized""#), "\(response.text)")
        }
    }

    /// What the wire decoder refuses is the client's input: `422` with the field's pointer for a definition.
    @Test func aWireErrorIsAnsweredAsInvalidInput() async throws {
        try await withTestServer(Self.configuration, router: Self.router(), middleware: [AttachCaller()]) {
            address, _ in
            let response = try #require(
                try await request(address, "POST", "/refused", headers: "X-Tenant: clinic-1\r\n", body: "{}"))
            #expect(response.status == 422)
            #expect(response.text.contains(#""pointer":"/thresholds/enter""#), "\(response.text)")
        }
    }

    /// ``Authentication`` attaches the caller its token grants, with an operator token's role.
    @Test func authenticationAttachesTheGrantedCaller() async throws {
        let tokens = try TokenTable(parsing: "tenant-token-0001 clinic-1\noperator-token-001 ops operator\n")
        let context = AppContext(
            store: FailingStore(), tokens: tokens, logger: Logger(level: .error), limits: LiveLimits(),
            metrics: ServerMetrics(), clock: { 0 })
        try await withTestServer(
            Self.configuration, router: Self.router(), middleware: [Authentication(context: context)]
        ) { address, _ in
            let answers = [
                ("tenant-token-0001", 200, "clinic-1 tenant"), ("operator-token-001", 200, "ops operator"),
                ("unknown-token-0001", 401, nil),
            ]
            for (token, status, text) in answers {
                let response = try #require(try await request(address, "GET", "/whoami", token: token))
                #expect(response.status == status, "\(token)")
                if let text { #expect(response.text == text) }
            }
        }
    }
}
