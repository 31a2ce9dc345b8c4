import HTTPServer
import HTTPWire
import Testing

@Suite("Router")
struct RouterTests {
    static func router() -> Router {
        var router = Router()
        router.get("/v1/sessions") { _ in .text("list") }
        router.post("/v1/sessions") { _ in .text("create") }
        router.get("/v1/sessions/{id}") { request in .text("one \(request.parameters["id"] ?? "")") }
        router.delete("/v1/sessions/{id}") { _ in .text("delete") }
        router.get("/v1/sessions/{id}/series") { _ in .text("series") }
        router.get("/assets/{path...}") { _ in .text("asset") }
        return router
    }

    func parameters(_ match: Router.Match) -> RouteParameters? {
        if case .found(_, let parameters) = match { return parameters }
        return nil
    }

    @Test func matchesLiteralAndParameterSegments() {
        let router = Self.router()
        #expect(parameters(router.match(.get, path: "/v1/sessions")) != nil)
        #expect(parameters(router.match(.get, path: "/v1/sessions/abc"))?["id"] == "abc")
        #expect(parameters(router.match(.get, path: "/v1/sessions/abc/series"))?["id"] == "abc")
        #expect(parameters(router.match(.get, path: "/v1/sessions/abc/"))?["id"] == "abc", "trailing slash ignored")
        #expect(parameters(router.match(.get, path: "/assets/a/b.js"))?["path"] == "a/b.js")
        #expect(parameters(router.match(.get, path: "/assets"))?["path"] == "")
    }

    @Test func headUsesGetRoutes() {
        #expect(parameters(Self.router().match(.head, path: "/v1/sessions/x"))?["id"] == "x")
    }

    @Test func distinguishesNotFoundFromMethodNotAllowed() {
        let router = Self.router()
        guard case .notFound = router.match(.get, path: "/v1/nothing") else {
            Issue.record("expected notFound")
            return
        }
        guard case .methodNotAllowed(let allowed) = router.match(.put, path: "/v1/sessions/x") else {
            Issue.record("expected methodNotAllowed")
            return
        }
        #expect(allowed.map(\.rawValue) == ["GET", "DELETE", "HEAD"])
        guard case .notFound = router.match(.get, path: "/v1/sessions/a/b/c") else {
            Issue.record("extra segments do not match")
            return
        }
    }
}
