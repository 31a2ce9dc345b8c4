import Foundation
import Glibc
import HTTPServer
import HTTPWire
import Testing

/// Clients that try to make the server hold memory or connections: they send without reading, stop reading in
/// the middle of a response, or spell paths and versions in unusual ways.
@Suite("HTTP abuse")
struct HTTPAbuseTests {
    /// 4 MiB that gzip cannot shrink (so the response is sent as it is, whatever the client accepts).
    static let large: [UInt8] = {
        var generator = SystemRandomNumberGenerator()
        return (0..<(4 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }()

    static func router() -> Router {
        var router = testRouter()
        router.get("/large") { _ in HTTPResponse(contentType: "application/octet-stream", bytes: large) }
        return router
    }

    /// Sends pipelined requests without reading any response until the socket has had no room for a second, or
    /// `cap` bytes have gone; returns how many bytes the server let in.
    static func sendWithoutReading(_ client: TestClient, request: String, cap: Int) -> Int {
        let flags = fcntl(client.fd, F_GETFL)
        _ = fcntl(client.fd, F_SETFL, flags | O_NONBLOCK)
        let batch = Array(String(repeating: request, count: 64).utf8)
        var sent = 0
        while sent < cap {
            let count = batch.withUnsafeBytes { Glibc.send(client.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count > 0 {
                sent += count
                continue
            }
            // Full: wait for room, at most a second (the server has stopped reading if none comes).
            var room = pollfd(fd: client.fd, events: Int16(POLLOUT), revents: 0)
            if poll(&room, 1, 1000) <= 0 { break }
        }
        return sent
    }

    @Test func stopsReadingAClientThatSendsWithoutReading() async throws {
        try await withServer(router: Self.router()) { address, _ in
            let client = try TestClient(address)
            let cap = 256 << 20
            let sent = Self.sendWithoutReading(client, request: "GET /large HTTP/1.1\r\nHost: x\r\n\r\n", cap: cap)
            // What the kernel buffers on both sides plus the connection's read-ahead; unbounded reading takes all.
            #expect(sent < 48 << 20, "the server read \(sent) bytes of requests it could not answer")
        }
    }

    @Test func closesAConnectionWhoseClientStopsReading() async throws {
        let clock = ManualClock()
        let configuration = testConfiguration {
            $0.writeTimeout = .seconds(30)
            $0.clock = .manual(clock)
        }
        try await withServer(configuration, router: Self.router()) { address, server in
            let client = try TestClient(address)
            client.send("GET /large HTTP/1.1\r\nHost: x\r\n\r\n")
            await clock.advance(by: .seconds(30) - .milliseconds(1))
            #expect(server.metrics.snapshot.openConnections == 1, "not before the write timeout")
            // One write timeout from when the socket filled; two if the kernel still moved bytes when it was checked.
            for _ in 0..<3 where server.metrics.snapshot.openConnections > 0 {
                await clock.advance(by: .seconds(30))
            }
            #expect(
                server.metrics.snapshot.openConnections == 0, "a client that never reads still holds its connection")
        }
    }

    @Test func keepsAClientThatReadsSlowlyButSteadily() async throws {
        let clock = ManualClock()
        let configuration = testConfiguration {
            $0.writeTimeout = .seconds(3)
            $0.clock = .manual(clock)
        }
        try await withServer(configuration, router: Self.router()) { address, _ in
            let client = try TestClient(address)
            client.send("GET /large HTTP/1.1\r\nHost: x\r\n\r\n")
            // 4 MiB at 64 KiB per 75 ms: over 4.5 s, more than a write timeout, with bytes leaving all along.
            let fd = client.fd
            let received = try await offPool {
                var received = 0
                var buffer = [UInt8](repeating: 0, count: 64 << 10)
                while received < Self.large.count {
                    let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                    guard count > 0 else { break }
                    received += count
                    clock.advanceBlocking(by: .milliseconds(75))
                }
                return received
            }
            #expect(received >= Self.large.count, "the whole response (head and body) arrives: \(received) bytes")
        }
    }

    @Test func answersTheNextRequestAfterAResponseThatHadToWaitForTheSocket() async throws {
        let clock = ManualClock()
        try await withServer(testConfiguration { $0.clock = .manual(clock) }, router: Self.router()) { address, _ in
            let client = try TestClient(address)
            client.send("GET /large HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n")
            // The loops finish what is ready: the 4 MiB response fills the socket and waits.
            await clock.advance(by: .zero)
            #expect(client.readResponse()?.body.count == Self.large.count)
            #expect(client.readResponse()?.text == "hello", "the pipelined request behind it is answered")
            client.send("GET /items/7 HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(client.readResponse()?.text == "item 7")
        }
    }

    @Test func http10KeepAliveIsConfirmedInTheResponse() async throws {
        try await withServer { address, _ in
            let client = try TestClient(address)
            client.send("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            let first = try #require(client.readResponse())
            #expect(first.header("Connection")?.lowercased() == "keep-alive")
            client.send("GET / HTTP/1.0\r\n\r\n")
            let second = try #require(client.readResponse())
            #expect(second.text == "hello")
            #expect(second.header("Connection")?.lowercased() == "close")
            #expect(client.isClosedByPeer())
        }
    }

    @Test(arguments: ["//sub", "///sub", "/sub/../sub", "//sub?x=1"])
    func directoryRedirectsStayOnThisHost(path: String) async throws {
        try await withFileServer { address in
            let client = try TestClient(address)
            client.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try #require(client.readResponse())
            if response.status == 301 {
                let location = try #require(response.header("Location"))
                #expect(location.hasPrefix("/sub/"), "\(path) → \(location)")
                #expect(!location.hasPrefix("//"), "a scheme-relative Location sends the client to another host")
            } else {
                #expect(response.status == 404)
            }
        }
    }
}
