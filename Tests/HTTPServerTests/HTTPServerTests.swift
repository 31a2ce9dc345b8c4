import Foundation
import HTTPServer
import HTTPWire
import Synchronization
import Testing

/// Starts a server with the test routes (or `router`) on a free loopback port for one test.
func withServer(
    _ configuration: HTTPServerConfiguration = testConfiguration(), router: Router = testRouter(),
    fallback: Router.Handler? = nil, middleware: [any HTTPMiddleware] = [],
    _ body: (SocketAddress, HTTPServer) async throws -> Void
) async throws {
    try await withTestServer(configuration, router: router, fallback: fallback, middleware: middleware, body)
}

func testRouter() -> Router {
    var router = Router()
    router.get("/") { _ in .text("hello") }
    router.post("/echo") { request in HTTPResponse(contentType: "application/octet-stream", bytes: request.body) }
    router.get("/items/{id}") { request in .text("item \(request.parameters["id"] ?? "?")") }
    router.get("/files/{path...}") { request in .text("file \(request.parameters["path"] ?? "?")") }
    router.get("/big") { _ in .text(String(repeating: "compressible text ", count: 1000)) }
    router.get("/stream") { _ in
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        for i in 0..<5 { continuation.yield(Array("part\(i);".utf8)) }
        continuation.finish()
        return HTTPResponse(headers: ["Content-Type": "text/plain"], body: .stream(stream))
    }
    router.get("/slow") { _ in
        // Long enough for handlers of later pipelined requests to finish first, were they run at once.
        for _ in 0..<1000 { await Task.yield() }
        return .text("slow")
    }
    return router
}

@Suite("HTTP server over loopback sockets")
struct HTTPServerTests {
    @Test func answersASimpleGetWithDateAndLength() async throws {
        try await withServer { address, _ in
            let client = try TestClient(address)
            client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try #require(client.readResponse())
            #expect(response.status == 200)
            #expect(response.text == "hello")
            #expect(response.header("Content-Length") == "5")
            #expect(response.header("Date")?.hasSuffix(" GMT") == true)
        }
    }

    @Test func listensOnIPv6Loopback() async throws {
        try await withServer(testConfiguration { $0.host = "::1" }) { address, _ in
            #expect(address.description.hasPrefix("[::1]:"))
            let client = try TestClient(address)
            client.send("GET / HTTP/1.1\r\nHost: [::1]\r\n\r\n")
            #expect(client.readResponse()?.text == "hello")
        }
    }

    @Test func keepsTheConnectionAliveAndAnswersPipelinedRequestsInOrder() async throws {
        try await withServer { address, _ in
            let client = try TestClient(address)
            client.send(
                "GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /items/2 HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabcGET /items/4 HTTP/1.1\r\nHost: x\r\n\r\n"
            )
            let bodies = (0..<4).compactMap { _ in client.readResponse()?.text }
            #expect(bodies == ["slow", "item 2", "abc", "item 4"])
        }
    }

    /// Thousands of requests in one write, some of whose handlers suspend, are answered in order.
    @Test func answersThousandsOfPipelinedRequestsInOrder() async throws {
        try await withServer { address, _ in
            let client = try TestClient(address)
            let count = 3_000
            let requests = (0..<count).map { index in
                index % 500 == 7
                    ? "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n" : "GET /items/\(index) HTTP/1.1\r\nHost: x\r\n\r\n"
            }
            client.send(requests.joined())
            var bodies: [String] = []
            for _ in 0..<count {
                guard let response = client.readResponse() else { break }
                bodies.append(response.text)
            }
            #expect(bodies == (0..<count).map { $0 % 500 == 7 ? "slow" : "item \($0)" })
        }
    }

    @Test func closesAfterConnectionCloseAndForHTTP10() async throws {
        try await withServer { address, _ in
            for request in ["GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "GET / HTTP/1.0\r\n\r\n"] {
                let client = try TestClient(address)
                client.send(request)
                let response = try #require(client.readResponse())
                #expect(response.header("Connection") == "close")
                #expect(client.isClosedByPeer())
            }
        }
    }

    @Test func headAnswersHeadersWithoutBody() async throws {
        try await withServer { address, _ in
            let client = try TestClient(address)
            client.send("HEAD / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n")
            let head = try #require(client.readResponse(method: "HEAD"))
            #expect(head.header("Content-Length") == "5")
            #expect(head.body.isEmpty)
            #expect(client.readResponse()?.text == "hello", "the next response starts right after the head")
        }
    }

    @Test func readsChunkedBodiesAndAnswersExpectContinue() async throws {
        try await withServer { address, _ in
            let client = try TestClient(address)
            client.send(
                "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n"
            )
            #expect(client.readResponse()?.text == "abcde")
            client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
            #expect(client.readResponse()?.status == 100)
            client.send("wxyz")
            #expect(client.readResponse()?.text == "wxyz")
        }
    }

    @Test func routesParametersAndAnswers404And405WithAllow() async throws {
        try await withServer { address, _ in
            let client = try TestClient(address)
            client.send("GET /files/a/b/c.txt HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(client.readResponse()?.text == "file a/b/c.txt")
            client.send("GET /nothing HTTP/1.1\r\nHost: x\r\n\r\n")
            let missing = try #require(client.readResponse())
            #expect(missing.status == 404)
            #expect(missing.text == "no such resource")
            client.send("DELETE /echo HTTP/1.1\r\nHost: x\r\n\r\n")
            let wrong = try #require(client.readResponse())
            #expect(wrong.status == 405)
            #expect(wrong.header("Allow") == "POST")
        }
    }

    @Test func gzipsLargeCompressibleBodiesForClientsThatAcceptIt() async throws {
        try await withServer { address, _ in
            let client = try TestClient(address)
            client.send("GET /big HTTP/1.1\r\nHost: x\r\nAccept-Encoding: br, gzip;q=0.8\r\n\r\n")
            let zipped = try #require(client.readResponse())
            #expect(zipped.header("Content-Encoding") == "gzip")
            #expect(zipped.header("Vary") == "Accept-Encoding")
            let plain = try Gzip.decompress(zipped.body, limit: 1 << 20)
            #expect(String(decoding: plain, as: UTF8.self) == String(repeating: "compressible text ", count: 1000))
            client.send("GET /big HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip;q=0\r\n\r\n")
            #expect(client.readResponse()?.header("Content-Encoding") == nil)
        }
    }

    @Test func streamsChunkedResponses() async throws {
        try await withServer { address, _ in
            let client = try TestClient(address)
            client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n")
            let streamed = try #require(client.readResponse())
            #expect(streamed.header("Transfer-Encoding") == "chunked")
            #expect(streamed.text == "part0;part1;part2;part3;part4;")
            #expect(client.readResponse()?.text == "hello")
        }
    }

    static let malformed: [(String, Int)] = [
        ("GARBAGE\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: x\r\nX: a\r\n folded\r\n\r\n", 400),
        ("GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505),
        ("GET / HTTP/1.1\r\n\r\n", 400),
        ("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
        ("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
        ("GET /\(String(repeating: "a", count: 9000)) HTTP/1.1\r\nHost: x\r\n\r\n", 414),
        ("GET / HTTP/1.1\r\nHost: x\r\nX: \(String(repeating: "b", count: 17000))\r\n\r\n", 431),
        ("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2000\r\n\r\n", 413),
        (
            "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n7d0\r\n\(String(repeating: "c", count: 2000))\r\n0\r\n\r\n",
            413
        ),
    ]

    @Test(arguments: malformed)
    func answersMalformedAndOversizedRequestsWithTheirStatusAndCloses(request: String, status: Int) async throws {
        try await withServer(testConfiguration { $0.limits.maxBodyBytes = 1000 }) { address, _ in
            let client = try TestClient(address)
            client.send(request)
            let response = try #require(client.readResponse())
            #expect(response.status == status)
            #expect(response.header("Connection") == "close")
            #expect(client.isClosedByPeer())
            let next = try TestClient(address)
            next.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(next.readResponse()?.status == 200, "the server goes on")
        }
    }

    @Test func answers408ToSlowHeadersAndClosesIdleConnections() async throws {
        let clock = ManualClock()
        try await withServer(testConfiguration { $0.clock = .manual(clock) }) { address, _ in
            let idle = try TestClient(address)
            idle.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(idle.readResponse()?.status == 200)
            let slow = try TestClient(address)
            slow.send("GET / HTTP/1.1\r\nHos")
            await clock.advance(by: .seconds(10) - .milliseconds(1))
            #expect(slow.isOpenWithNothingToRead(), "the head timeout (10 s) has not passed")
            await clock.advance(by: .milliseconds(1))
            #expect(slow.readResponse()?.status == 408)
            #expect(slow.isClosedByPeer())
            await clock.advance(by: .seconds(50) - .milliseconds(1))
            #expect(idle.isOpenWithNothingToRead(), "the idle timeout (60 s) has not passed")
            await clock.advance(by: .milliseconds(1))
            #expect(idle.isClosedByPeer(), "closed after the idle timeout")
        }
    }

    @Test func answers408ToASlowBodyAndTimesEachRequestAfresh() async throws {
        let clock = ManualClock()
        try await withServer(testConfiguration { $0.clock = .manual(clock) }) { address, _ in
            let client = try TestClient(address)
            // Kept alive for 59 s, then a request: the idle timer does not fire under it.
            client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(client.readResponse()?.status == 200)
            await clock.advance(by: .seconds(59))
            client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc")
            await clock.advance(by: .seconds(30) - .milliseconds(1))
            #expect(client.isOpenWithNothingToRead(), "the body timeout (30 s) runs from the head")
            await clock.advance(by: .milliseconds(1))
            let response = try #require(client.readResponse())
            #expect(response.status == 408)
            #expect(response.header("Connection") == "close")
            #expect(client.isClosedByPeer())
        }
    }

    @Test func closesAfterTheLingeringTimeoutWhenTheClientNeverCloses() async throws {
        let clock = ManualClock()
        try await withServer(testConfiguration { $0.clock = .manual(clock) }) { address, server in
            let client = try TestClient(address)
            client.send("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(client.readResponse()?.status == 200)
            #expect(client.isClosedByPeer(), "the write side is shut after the last response")
            client.send("more")
            await clock.advance(by: .seconds(2) - .milliseconds(1))
            #expect(server.metrics.snapshot.openConnections == 1, "still reading and dropping what arrives")
            await clock.advance(by: .milliseconds(1))
            #expect(server.metrics.snapshot.openConnections == 0, "closed at the lingering timeout (2 s)")
        }
    }

    /// A middleware's refusal, a method the route does not allow and a body where none is taken are decided from
    /// the head: the answer comes without the client sending its body, `Expect: 100-continue` gets it instead of
    /// `100 Continue`, and the connection closes after it (the body is never read); a refused request without a body
    /// keeps its connection.
    @Test func refusalsAreDecidedFromTheHeadBeforeTheBody() async throws {
        struct Gate: HTTPMiddleware {
            func prepare(_ request: inout HTTPRequest) throws -> HTTPResponse? {
                guard request.headers["Authorization"] == "Bearer ok" else {
                    throw HTTPError(.unauthorized, code: "unauthorized", message: "no token")
                }
                #expect(request.body.isEmpty, "middleware runs on the head, before the body")
                return nil
            }
        }
        try await withServer(middleware: [Gate()]) { address, server in
            let heads = [
                ("POST /echo", "", 401),
                ("POST /echo", "Expect: 100-continue\r\n", 401),
                ("GET /", "Authorization: Bearer ok\r\n", 413),
                ("DELETE /", "Authorization: Bearer ok\r\n", 405),
            ]
            for (line, extra, status) in heads {
                let client = try TestClient(address, timeoutSeconds: 5)
                // 800 kB declared (the body limit is 1 MiB); not one byte of them sent.
                client.send("\(line) HTTP/1.1\r\nHost: x\r\n\(extra)Content-Length: 800000\r\n\r\n")
                let response = try #require(client.readResponse(), "\(line) answered from its head")
                #expect(response.status == status, "\(line) \(extra)")
                #expect(response.header("Connection") == "close", "the unread body ends the connection")
            }
            let kept = try TestClient(address)
            kept.send("GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ok\r\n\r\n")
            #expect(kept.readResponse()?.status == 401)
            #expect(kept.readResponse()?.text == "hello", "a refusal without a body keeps the connection")
            let admitted = try TestClient(address)
            admitted.send(
                "POST /echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ok\r\nExpect: 100-continue\r\n"
                    + "Content-Length: 4\r\n\r\n")
            #expect(admitted.readResponse()?.status == 100, "admitted from its head: go on")
            admitted.send("ping")
            #expect(admitted.readResponse()?.text == "ping")
            _ = server
        }
    }

    /// One client address keeps at most `maxConnectionsPerAddress` open; another address still gets in, and a
    /// closed connection gives its slot back.
    @Test func boundsTheConnectionsOfOneAddress() async throws {
        try await withServer(
            testConfiguration {
                $0.maxConnectionsPerAddress = 2
                $0.loops = 1
            }
        ) { address, server in
            var first: TestClient? = try TestClient(address)
            let second = try TestClient(address)
            for client in [first, second] {
                client?.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(client?.readResponse()?.status == 200)
            }
            let third = try TestClient(address)
            #expect(third.readResponse()?.status == 503, "a third from 127.0.0.1")
            let elsewhere = try TestClient(address, bindTo: "127.0.0.2")
            elsewhere.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(elsewhere.readResponse()?.status == 200, "another address is not bounded by this one's")
            first?.close()
            first = nil
            var admitted = false
            for _ in 0..<100 where !admitted {
                let again = try TestClient(address, timeoutSeconds: 2)
                again.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                admitted = again.readResponse()?.status == 200
                if !admitted { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(admitted, "the closed connection's slot is free again")
            #expect(server.metrics.snapshot.refusedConnections >= 1)
        }
    }

    @Test func refusesConnectionsBeyondTheLimitWith503() async throws {
        try await withServer(
            testConfiguration {
                $0.maxConnections = 2
                $0.loops = 1
            }
        ) { address, server in
            let first = try TestClient(address)
            let second = try TestClient(address)
            first.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            second.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(first.readResponse()?.status == 200)
            #expect(second.readResponse()?.status == 200)
            let third = try TestClient(address)
            #expect(third.readResponse()?.status == 503)
            #expect(server.metrics.snapshot.refusedConnections == 1)
        }
    }

    @Test func survivesGarbageAndAnswersTheNextGoodRequest() async throws {
        try await withServer { address, server in
            var random = SystemRandomNumberGenerator()
            var seed: UInt64 = 42
            for round in 0..<200 {
                let client = try TestClient(address, timeoutSeconds: 1)
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let length = Int(seed >> 54)
                var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
                if round % 3 == 0 {
                    bytes = Array("GET /items/\(round) HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab".utf8)
                }
                client.send(bytes)
            }
            let client = try TestClient(address)
            client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(client.readResponse()?.text == "hello")
        }
    }

    /// Middleware prepares requests outermost first and completes responses innermost first, around handlers that
    /// answer at once, handlers that await, the fallback and errors alike; one that answers stops the request there.
    @Test(arguments: ["/items/1", "/slow", "/nothing"])
    func middlewareRunsAroundEveryKindOfAnswerInOrder(path: String) async throws {
        enum Seen: RequestContextKey { typealias Value = String }
        struct Tag: HTTPMiddleware {
            let name: String
            func prepare(_ request: inout HTTPRequest) throws -> HTTPResponse? {
                if request.headers["X-Block"] == name { throw HTTPError(.unauthorized, code: "blocked", message: name) }
                if request.headers["X-Answer"] == name { return .text("answered by \(name)") }
                request.context[Seen.self] = (request.context[Seen.self] ?? "") + name + ";"
                return nil
            }
            func complete(_ response: inout HTTPResponse, to request: HTTPRequest) {
                response.headers.add(name: "X-Trace", value: name)
                response.headers.add(name: "X-Seen", value: request.context[Seen.self] ?? "-")
            }
        }
        let fallback: Router.Handler = { request in
            await Task.yield()
            return .text("fallback \(request.context[Seen.self] ?? "-")")
        }
        let middleware = [Tag(name: "outer"), Tag(name: "inner")]
        try await withServer(fallback: fallback, middleware: middleware) { address, _ in
            let client = try TestClient(address)
            func traces(_ response: TestResponse) -> [String] { response.headers.filter { $0.0 == "X-Trace" }.map(\.1) }
            client.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try #require(client.readResponse())
            #expect(response.status == 200)
            #expect(traces(response) == ["inner", "outer"])
            #expect(response.header("X-Seen") == "outer;inner;", "both saw the request the handler got")
            if path == "/nothing" { #expect(response.text == "fallback outer;inner;") }

            client.send("GET \(path) HTTP/1.1\r\nHost: x\r\nX-Block: inner\r\n\r\n")
            let blocked = try #require(client.readResponse())
            #expect(blocked.status == 401)
            // The outer middleware sees what the inner one threw as a response; the inner one does not.
            #expect(traces(blocked) == ["outer"])

            client.send("GET \(path) HTTP/1.1\r\nHost: x\r\nX-Answer: outer\r\n\r\n")
            let answered = try #require(client.readResponse())
            #expect(answered.text == "answered by outer")
            #expect(traces(answered).isEmpty)
        }
    }

    /// Tens of thousands of requests answered at once, pipelined in one write, are answered in order: the next
    /// request starts inside the parsing loop already running, not in a call nested per request.
    @Test func answersTensOfThousandsOfImmediateRequestsPipelined() async throws {
        try await withServer { address, _ in
            let client = try TestClient(address)
            let count = 40_000
            let requests = Array((0..<count).map { "GET /items/\($0) HTTP/1.1\r\nHost: x\r\n\r\n" }.joined().utf8)
            // Sent while the responses are read, as fast as the socket takes them, so the server reads thousands of
            // requests at a time.
            let fd = client.fd
            Thread {
                var offset = 0
                while offset < requests.count {
                    let sent = requests[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
                    guard sent > 0 else { return }
                    offset += sent
                }
            }.start()
            var answered = 0
            for index in 0..<count {
                guard let response = client.readResponse(), response.text == "item \(index)" else { break }
                answered += 1
            }
            #expect(answered == count)
        }
    }

    @Test func upgradeHandsTheSocketAndLeftoverBytesToTheNewOwner() async throws {
        let received = Mutex<[UInt8]?>(nil)
        var router = Router()
        router.get("/upgrade") { _ in
            var response = HTTPResponse(
                status: .switchingProtocols, headers: ["Upgrade": "echo", "Connection": "Upgrade"])
            response.upgrade = { connection in
                received.withLock { $0 = connection.leftover }
                let reply = Array("upgraded:".utf8) + connection.leftover
                _ = reply.withUnsafeBytes { write(connection.fd, $0.baseAddress, $0.count) }
                close(connection.fd)
                connection.lifetime.close()
            }
            return response
        }
        try await withServer(router: router) { address, _ in
            let client = try TestClient(address)
            client.send("GET /upgrade HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\nhello-after")
            let response = try #require(client.readResponse())
            #expect(response.status == 101)
            #expect(String(decoding: client.readToEnd(), as: UTF8.self) == "upgraded:hello-after")
            #expect(received.withLock { $0 } == Array("hello-after".utf8))
        }
    }

    @Test func refusesAPortAnotherServerListensOnAndTakesItOnceFree() async throws {
        var configuration = testConfiguration()
        configuration.loops = 2
        let first = try HTTPServer(configuration: configuration, router: testRouter())
        let address = try first.start()
        // Another server of the same user could join the first's SO_REUSEPORT group and take part of its traffic.
        configuration.port = address.port
        let second = try HTTPServer(configuration: configuration, router: testRouter())
        #expect(throws: SystemError(call: "bind \(address)", code: EADDRINUSE)) { try second.start() }
        let client = try TestClient(address)
        client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(client.readResponse()?.text == "hello")
        await first.shutdown(gracePeriod: .seconds(1))
        first.stopLoops()
        // A server that has stopped leaves the port free, its closed connections notwithstanding.
        #expect(try second.start() == address)
        let again = try TestClient(address)
        again.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(again.readResponse()?.text == "hello")
        await second.shutdown(gracePeriod: .seconds(1))
        second.stopLoops()
    }

    @Test func shutdownFinishesRequestsInFlightAndClosesIdleConnections() async throws {
        let (entered, enteredContinuation) = AsyncStream.makeStream(of: Void.self)
        let (gate, gateContinuation) = AsyncStream.makeStream(of: Void.self)
        var router = testRouter()
        router.get("/gated") { _ in
            enteredContinuation.yield()
            for await _ in gate { break }
            return .text("finished")
        }
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.logLevel = .error
        let server = try HTTPServer(configuration: configuration, router: router)
        let address = try server.start()
        let idle = try TestClient(address)
        idle.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(idle.readResponse()?.status == 200)
        let busy = try TestClient(address)
        busy.send("GET /gated HTTP/1.1\r\nHost: x\r\n\r\n")
        for await _ in entered { break }
        let drained = Mutex(false)
        let shutdown = Task { await server.shutdown(gracePeriod: .seconds(10)) { drained.withLock { $0 = true } } }
        while !server.isShuttingDown { await Task.yield() }
        #expect(idle.isClosedByPeer(), "idle keep-alive connections close at once")
        gateContinuation.yield()
        let answer = try #require(busy.readResponse())
        #expect(answer.text == "finished")
        #expect(answer.header("Connection") == "close")
        await shutdown.value
        #expect(drained.withLock { $0 }, "the application's drain ran")
        #expect(server.metrics.snapshot.openConnections == 0)
        #expect(throws: SystemError.self) { _ = try Socket.connect(to: address) }
        server.stopLoops()
    }
}
