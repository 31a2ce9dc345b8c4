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
        if case .found(_, let parameters, _) = match { return parameters }
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

    @Test(arguments: ["/v1/sessions", "//v1/sessions", "/v1//sessions", "/v1/sessions/", "///v1/sessions//"])
    func everySpellingOfAPathMatchesTheSameRoute(path: String) {
        let match = Self.router().match(.get, path: path)
        #expect(match.route == MatchedRoute(pattern: "/v1/sessions", isWebSocket: false), "\(path)")
        #expect(Self.router().match(.put, path: path).route?.pattern == "/v1/sessions", "405 names the route too")
    }

    @Test func pathsBeyondASCIIAreSplitByCharacters() {
        let router = Self.router()
        #expect(parameters(router.match(.get, path: "/v1/sessions/café"))?["id"] == "café")
        #expect(parameters(router.match(.get, path: "/v1/sessions/ñ/series"))?["id"] == "ñ")
        #expect(parameters(router.match(.get, path: "/assets/á/b.js"))?["path"] == "á/b.js")
        // A `/` with a combining mark after it is one character, and no separator.
        #expect(parameters(router.match(.get, path: "/v1/sessions/a/\u{301}series"))?["id"] == "a/\u{301}series")
        #expect(parameters(router.match(.get, path: "/v1/sessions/a/\u{301}"))?["id"] == "a/\u{301}")
    }

    @Test func webSocketRoutesAreMarked() {
        var router = Self.router()
        router.webSocket("/v1/stream") { _ in }
        #expect(
            router.match(.get, path: "//v1/stream/").route == MatchedRoute(pattern: "/v1/stream", isWebSocket: true))
        #expect(router.match(.get, path: "/v1/nothing").route == nil)
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
        guard case .methodNotAllowed(let allowed, _) = router.match(.put, path: "/v1/sessions/x") else {
            Issue.record("expected methodNotAllowed")
            return
        }
        #expect(allowed.map(\.rawValue) == ["GET", "DELETE", "HEAD"])
        guard case .notFound = router.match(.get, path: "/v1/sessions/a/b/c") else {
            Issue.record("extra segments do not match")
            return
        }
    }

    @Test func putRoutesMatchPutAndJoinTheAllowedMethods() {
        var router = Self.router()
        router.put("/v1/sessions/{id}") { _ in .text("replace") }
        #expect(parameters(router.match(.put, path: "/v1/sessions/x"))?["id"] == "x")
        guard case .methodNotAllowed(let allowed, _) = router.match(.post, path: "/v1/sessions/x") else {
            Issue.record("expected methodNotAllowed")
            return
        }
        #expect(allowed.map(\.rawValue) == ["GET", "DELETE", "PUT", "HEAD"])
        #expect(HTTPStatus.unprocessableContent == HTTPStatus(code: 422))
        #expect(HTTPStatus(code: 422).reasonPhrase == "Unprocessable Content")
    }

    @Test func listsItsRoutesInRegistrationOrder() {
        var router = Self.router()
        router.webSocket("/v1/stream") { _ in }
        let routes = router.routes.map { "\($0.method) \($0.route.pattern)\($0.route.isWebSocket ? " ws" : "")" }
        #expect(
            routes == [
                "GET /v1/sessions", "POST /v1/sessions", "GET /v1/sessions/{id}", "DELETE /v1/sessions/{id}",
                "GET /v1/sessions/{id}/series", "GET /assets/{path...}", "GET /v1/stream ws",
            ])
        #expect(Router().routes.isEmpty)
    }

    /// The first route registered that matches both path and method wins, whatever kind its segments are; a path
    /// that only matches other methods' routes is a 405 for every one of them.
    @Test func theFirstRouteForPathAndMethodWins() {
        var router = Router()
        router.get("/v1/exercises/{id}") { _ in .text("one") }
        router.post("/v1/exercises/preview") { _ in .text("preview") }
        router.get("/v1/exercises/{id}/versions/{version}") { _ in .text("version") }
        router.get("/v1/exercises/latest/versions/{version}") { _ in .text("never") }
        #expect(parameters(router.match(.get, path: "/v1/exercises/preview"))?["id"] == "preview")
        #expect(router.match(.post, path: "/v1/exercises/preview").route?.pattern == "/v1/exercises/preview")
        let version = router.match(.get, path: "/v1/exercises/latest/versions/3")
        #expect(version.route?.pattern == "/v1/exercises/{id}/versions/{version}")
        #expect(parameters(version)?["id"] == "latest" && parameters(version)?["version"] == "3")
        guard case .methodNotAllowed(let allowed, let route) = router.match(.put, path: "/v1/exercises/preview") else {
            Issue.record("PUT on a path two routes match is a 405")
            return
        }
        #expect(allowed.map(\.rawValue) == ["GET", "POST", "HEAD"])
        #expect(route.pattern == "/v1/exercises/{id}")
        #expect(router.match(.get, path: "/v1/exercises/a/b/c/d").route == nil)
    }
}
