import Glibc
import HTTPServer
import HTTPWire
import NetworkTestSupport
import Testing

/// The lingering close after an error answered while the client is still sending its request: the client must read
/// that response whole over TLS as over plain TCP, however the server's reads split the input (TLS returns one
/// record of at most 16 KiB per read, a plain socket up to 64 KiB), and an endless sender must still be cut off.
///
/// The client sends in pieces of one TLS record and lets the server read each one before the next (the server's
/// loops run on a ``ManualClock``, whose `advance(by: .zero)` waits for them to read what has arrived): when the
/// server closes is then exact, not a race between its reads and the client's writes.
@Suite("Lingering close")
struct LingeringTests {
    /// One TLS record's worth of plaintext: the most the server reads per call over TLS.
    static let piece = 16 * 1024

    /// The default body limit (1 MiB): the largest request the server takes, so the largest one whose client must
    /// read the error that interrupts it.
    static let largestRequest = HTTPParserLimits().maxBodyBytes

    /// A request too large in one part: its request line (414) or its header section (431).
    enum Oversized: CaseIterable, CustomTestStringConvertible {
        case uri, headers

        var status: Int { self == .uri ? 414 : 431 }

        /// What the client sends before it reads the error: past the limit (8 KiB request line, 16 KiB headers).
        var sentFirst: Int { self == .uri ? piece : 2 * piece }

        /// `count` bytes of such a request (its end is never reached: the server answers before).
        func request(count: Int) -> [UInt8] {
            let start: String
            switch self {
            case .uri: start = "GET /"
            case .headers: start = "GET / HTTP/1.1\r\nHost: x\r\n"
            }
            var bytes = Array(start.utf8)
            var field = 0
            while bytes.count < count {
                switch self {
                case .uri: bytes += Array(repeating: UInt8(ascii: "a"), count: count - bytes.count)
                case .headers:
                    bytes += Array("X-Filler-\(field): \(String(repeating: "v", count: 1000))\r\n".utf8)
                    field += 1
                }
            }
            return Array(bytes.prefix(count))
        }

        var testDescription: String { self == .uri ? "a long URI" : "large headers" }
    }

    static func configuration(tls: Bool, clock: ManualClock) throws -> HTTPServerConfiguration {
        let useClock: (inout HTTPServerConfiguration) -> Void = { $0.clock = .manual(clock) }
        return tls ? try TLSTests.tlsConfiguration("ecdsa", useClock) : testConfiguration(useClock)
    }

    /// Sends `bytes` one piece at a time, each read by the server before the next is sent, until all are sent or
    /// the server closes the connection.
    /// - Returns: How many of them the server read.
    static func sendPaced(
        _ bytes: ArraySlice<UInt8>, from client: TestClient, to server: HTTPServer, clock: ManualClock
    ) async -> Int {
        let before = server.metrics.snapshot.bytesReceived
        var sent = 0
        while sent < bytes.count {
            let end = min(sent + piece, bytes.count)
            client.send(Array(bytes[bytes.startIndex + sent..<bytes.startIndex + end]))
            sent = end
            // The loops read what has arrived; a closed connection reads nothing more.
            for _ in 0..<1000 {
                let snapshot = server.metrics.snapshot
                if snapshot.bytesReceived - before >= sent || snapshot.openConnections == 0 { break }
                await clock.advance(by: .zero)
            }
            if server.metrics.snapshot.openConnections == 0 { break }
        }
        return server.metrics.snapshot.bytesReceived - before
    }

    /// Ends the client's side: close_notify over TLS, then the TCP half-close.
    static func endInput(of client: TestClient) {
        client.tls?.sendCloseNotify()
        shutdown(client.fd, Int32(SHUT_WR))
    }

    /// The error a reset left on the client's socket (`ECONNRESET`, or `EPIPE` after the server's FIN), 0 when none.
    static func pendingError(_ client: TestClient) -> Int32 {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(client.fd, SOL_SOCKET, SO_ERROR, &error, &length)
        return error
    }

    /// Lets the loops run until the server has closed every connection.
    static func waitForClose(of server: HTTPServer, clock: ManualClock) async {
        for _ in 0..<1000 where server.metrics.snapshot.openConnections > 0 { await clock.advance(by: .zero) }
    }

    @Test(arguments: [false, true], Oversized.allCases)
    func aClientStillSendingItsRequestReadsTheErrorAndAnOrderlyEnd(tls: Bool, oversized: Oversized) async throws {
        let clock = ManualClock()
        try await withServer(Self.configuration(tls: tls, clock: clock)) { address, server in
            let client = try TestClient(address, tls: tls ? TLSFixtures.client() : nil)
            let request = oversized.request(count: Self.largestRequest)
            client.send(Array(request.prefix(oversized.sentFirst)))
            let response = try #require(client.readResponse(), "the error goes out while the client still sends")
            #expect(response.status == oversized.status)
            #expect(response.header("Connection") == "close")
            // The rest of the request, read and dropped: the connection is not closed while input still arrives,
            // which would answer the client's next bytes with a reset.
            let rest = request[oversized.sentFirst...]
            let read = await Self.sendPaced(rest, from: client, to: server, clock: clock)
            #expect(read == rest.count, "the server stopped reading after \(read) of \(rest.count) bytes")
            #expect(server.metrics.snapshot.openConnections == 1, "still lingering while the request arrives")
            // The client ends its side: the server closes in turn, with nothing unread, so the end is orderly.
            Self.endInput(of: client)
            await Self.waitForClose(of: server, clock: clock)
            #expect(server.metrics.snapshot.openConnections == 0, "closed once the client has ended its side")
            #expect(Self.pendingError(client) == 0, "an orderly end, not a reset")
            #expect(client.isClosedByPeer())
        }
    }

    @Test(arguments: [false, true])
    func anEndlessSenderIsCutOffAtTheBound(tls: Bool) async throws {
        let clock = ManualClock()
        let configuration = try Self.configuration(tls: tls, clock: clock)
        try await withServer(configuration) { address, server in
            let client = try TestClient(address, tls: tls ? TLSFixtures.client() : nil)
            let request = Oversized.uri.request(count: 8 * configuration.maxLingeringBytes)
            client.send(Array(request.prefix(Self.piece)))
            #expect(client.readResponse()?.status == 414)
            let read = await Self.sendPaced(request[Self.piece...], from: client, to: server, clock: clock)
            #expect(server.metrics.snapshot.openConnections == 0, "closed without waiting for the timeout")
            #expect(read > configuration.maxLingeringBytes, "the bound itself is read")
            #expect(read <= configuration.maxLingeringBytes + Self.piece, "not much past the bound")
        }
    }
}
