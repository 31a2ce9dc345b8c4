import HTTPServer
import HTTPWire
import Testing

@Suite("Thrown errors become responses")
struct ErrorRenderingTests {
    struct Teapot: HTTPResponseError {
        func response() -> HTTPResponse {
            HTTPResponse(
                status: HTTPStatus(code: 418), headers: ["X-Kind": "teapot"], body: .bytes(Array("short".utf8)))
        }
    }

    struct Unexpected: Error {}

    /// `code|message`, so a test can see that the renderer, not the server, wrote the body.
    static let tagged = HTTPErrorRenderer { error in
        HTTPResponse(
            status: error.status, contentType: "application/x-test", bytes: Array("\(error.code)|\(error.message)".utf8)
        )
    }

    static func router() -> Router {
        var router = Router()
        router.get("/teapot") { _ in throw Teapot() }
        router.get("/boom") { _ in throw Unexpected() }
        router.get("/gone") { _ in
            throw HTTPError(.init(code: 410), code: "gone", message: "it left", headers: ["X-Why": "moved"])
        }
        return router
    }

    /// The response to one request on a fresh connection, from a server with ``router()`` and `renderer`.
    static func answer(
        _ request: String, renderer: HTTPErrorRenderer? = tagged
    ) async throws -> TestResponse {
        var response: TestResponse?
        let configuration = testConfiguration { if let renderer { $0.errorRenderer = renderer } }
        try await withServer(configuration, router: router()) { address, _ in
            let client = try TestClient(address)
            client.send(request)
            response = client.readResponse()
        }
        return try #require(response)
    }

    @Test func aThrownHTTPResponseErrorIsAnsweredWithItsOwnResponse() async throws {
        let response = try await Self.answer("GET /teapot HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(response.status == 418)
        #expect(response.header("X-Kind") == "teapot")
        #expect(response.text == "short")
    }

    @Test func anUnknownErrorIsA500WithTheConfiguredBody() async throws {
        let response = try await Self.answer("GET /boom HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(response.status == 500)
        #expect(response.header("Content-Type") == "application/x-test")
        #expect(response.text == "internalError|internal error")
    }

    @Test func theDefaultRendererWritesPlainText() async throws {
        let response = try await Self.answer("GET /boom HTTP/1.1\r\nHost: x\r\n\r\n", renderer: nil)
        #expect(response.status == 500)
        #expect(response.header("Content-Type") == "text/plain; charset=utf-8")
        #expect(response.text == "internal error")
    }

    @Test func aThrownHTTPErrorIsRenderedWithItsHeaders() async throws {
        let response = try await Self.answer("GET /gone HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(response.status == 410)
        #expect(response.header("X-Why") == "moved")
        #expect(response.text == "gone|it left")
    }

    @Test func aFailingHandlerLeavesTheConnectionOpen() async throws {
        try await withServer(testConfiguration { $0.errorRenderer = Self.tagged }, router: Self.router()) {
            address, _ in
            let client = try TestClient(address)
            client.send("GET /boom HTTP/1.1\r\nHost: x\r\n\r\nGET /teapot HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(client.readResponse()?.status == 500)
            #expect(client.readResponse()?.status == 418)
        }
    }

    @Test func routingAndParseErrorsGoThroughTheRenderer() async throws {
        try await withServer(testConfiguration { $0.errorRenderer = Self.tagged }, router: Self.router()) {
            address, _ in
            let client = try TestClient(address)
            client.send("GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n")
            let missing = try #require(client.readResponse())
            #expect((missing.status, missing.text) == (404, "notFound|no such resource"))
            client.send("POST /teapot HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
            let method = try #require(client.readResponse())
            #expect(method.status == 405)
            #expect(method.header("Allow") == "GET, HEAD")
            #expect(method.text.hasPrefix("methodNotAllowed|"))
            let bad = try TestClient(address)
            bad.send("GET / HTTP/9.9\r\n\r\n")
            let refused = try #require(bad.readResponse())
            #expect(refused.header("Content-Type") == "application/x-test")
            #expect(refused.header("Connection") == "close")
            #expect(refused.text.hasPrefix("badRequest|"))
        }
    }
}
