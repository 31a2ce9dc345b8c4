import LoadKit
import Testing

@Suite struct WebSocketTargetTests {
    @Test func parsesHostPortAndPath() throws {
        let target = try WebSocketTarget(url: "ws://10.1.2.3:8080/v1/stream?session=abc")
        #expect(target.host == "10.1.2.3")
        #expect(target.port == 8080)
        #expect(target.path == "/v1/stream?session=abc")
        #expect(target.headers.isEmpty)
    }

    /// Without a path (or with only `/`), the request target is `/`.
    @Test(arguments: ["ws://127.0.0.1:9000", "ws://127.0.0.1:9000/"])
    func defaultsThePathToSlash(url: String) throws {
        let target = try WebSocketTarget(url: url)
        #expect(target.host == "127.0.0.1")
        #expect(target.port == 9000)
        #expect(target.path == "/")
    }

    @Test func resolvesLocalhostToTheLoopbackAddress() throws {
        let target = try WebSocketTarget(url: "ws://localhost:1/ws")
        #expect(target.host == "127.0.0.1")
        #expect(target.port == 1)
        #expect(target.path == "/ws")
    }

    @Test func acceptsTheWholePortRange() throws {
        #expect(try WebSocketTarget(url: "ws://0.0.0.0:0").port == 0)
        #expect(try WebSocketTarget(url: "ws://255.255.255.255:65535/").port == 65535)
    }

    @Test func headersCanBeAdded() throws {
        var target = try WebSocketTarget(url: "ws://127.0.0.1:80/")
        target.headers.append(("Authorization", "Bearer x"))
        #expect(target.headers.count == 1)
        #expect(target.headers.first?.0 == "Authorization")
    }

    /// Every refusal throws a ``WebSocketTarget/URLError`` whose description says what is wrong.
    @Test(arguments: [
        ("wss://127.0.0.1:443/", "only ws://"),
        ("http://127.0.0.1:80/", "only ws://"),
        ("WS://127.0.0.1:80/", "only ws://"),
        ("127.0.0.1:80", "only ws://"),
        ("", "only ws://"),
        ("ws://127.0.0.1/path", "needs a port"),
        ("ws://127.0.0.1", "needs a port"),
        ("ws://127.0.0.1:/", "needs a port"),
        ("ws://127.0.0.1:http/", "needs a port"),
        ("ws://127.0.0.1:65536/", "needs a port"),
        ("ws://127.0.0.1:99999/", "needs a port"),
        ("ws://127.0.0.1:-1/", "needs a port"),
        ("ws://example.com:80/", "numeric IPv4"),
        ("ws://my-server:8080/ws", "numeric IPv4"),
        ("ws://:80/", "numeric IPv4"),
        ("ws://[::1]:80/", "numeric IPv4"),
        ("ws://256.0.0.1:80/", "numeric IPv4"),
    ])
    func refusesBadURLs(url: String, problem: String) {
        let error = #expect(throws: WebSocketTarget.URLError.self) { try WebSocketTarget(url: url) }
        #expect(error?.description.contains(problem) == true, "\(url): \(error?.description ?? "no error")")
    }
}
