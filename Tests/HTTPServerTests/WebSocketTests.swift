import Foundation
import HTTPServer
import HTTPWire
import Synchronization
import Testing
import WebSocketClient

/// `/echo` echoes, `/auth` needs a subprotocol, `/flood` answers a message with 500 replaceable 64 KiB snapshots and
/// an event, then reports its queued bytes to `flooded`.
func echoRouter(
    configuration: WebSocketConfiguration = WebSocketConfiguration(), hub: WebSocketHub? = nil,
    flooded: @escaping @Sendable (Int) -> Void = { _ in }
) -> Router {
    var router = Router()
    router.webSocket("/echo", configuration: configuration, hub: hub) { socket in
        socket.onMessage = { message in
            if case .text("close-please") = message.message { return socket.close(code: .normal, reason: "asked") }
            socket.send(message)
        }
    }
    let authenticate: @Sendable (HTTPRequest) async -> WebSocketUpgradeDecision = { request in
        request.headers["Sec-WebSocket-Protocol"]?.contains("bearer.good") == true
            ? .accept(subprotocol: "bearer.good")
            : .reject(.text("no token", status: .unauthorized))
    }
    router.webSocket("/auth", shouldUpgrade: authenticate) { socket in
        socket.onMessage = { _ in socket.send(.text(socket.subprotocol ?? "none")) }
    }
    router.webSocket("/flood") { socket in
        socket.onMessage = { _ in
            let padding = String(repeating: ".", count: 64 * 1024)
            for i in 0..<500 { socket.send(.text("snapshot \(i) \(padding)"), replacing: "snapshot") }
            socket.send(.text("event"))
            flooded(socket.queuedByteCount)
        }
    }
    return router
}

@Suite("WebSocket server and client")
struct WebSocketTests {
    static func connect(
        _ address: SocketAddress, _ path: String = "/echo", options: WebSocketClient.Options = .init(),
        group: EventLoopGroup
    ) async throws -> (WebSocket, Inbox) {
        let socket = try await WebSocketClient.connect(
            host: "127.0.0.1", port: address.port, path: path, options: options, on: group.next())
        let inbox = Inbox()
        await inbox.attach(to: socket)
        return (socket, inbox)
    }

    @Test(arguments: [true, false])
    func echoesTextAndBinaryOfEverySizeClass(compression: Bool) async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        try await withServer(router: echoRouter()) { address, _ in
            var options = WebSocketClient.Options()
            options.compression = compression
            let (socket, inbox) = try await Self.connect(address, options: options, group: group)
            let sent: [WebSocketMessage] = [
                .text(""), .text("hello"), .text(String(repeating: "é", count: 200)),
                .binary(Array(repeating: 7, count: 70_000)), .text(String(repeating: "pose ", count: 10_000)),
            ]
            for message in sent { socket.send(message) }
            await inbox.wait { $0.messages.count == sent.count }
            #expect(inbox.messages == sent)
            socket.close()
            await inbox.wait { $0.close != nil }
            #expect(inbox.close?.0 == .normal)
        }
    }

    @Test func serverClosesWithTheCodeItChose() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        try await withServer(router: echoRouter()) { address, _ in
            let (socket, inbox) = try await Self.connect(address, group: group)
            socket.send(.text("close-please"))
            await inbox.wait { $0.close != nil }
            #expect(inbox.close?.0 == .normal)
            #expect(inbox.close?.1 == "asked")
        }
    }

    @Test func subprotocolAuthenticationAcceptsAndRejects() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        try await withServer(router: echoRouter()) { address, _ in
            var options = WebSocketClient.Options()
            options.protocols = ["bearer.good"]
            let (socket, inbox) = try await Self.connect(address, "/auth", options: options, group: group)
            #expect(socket.subprotocol == "bearer.good")
            socket.send(.text("who"))
            await inbox.wait { !$0.messages.isEmpty }
            #expect(inbox.messages == [.text("bearer.good")])
            options.protocols = ["bearer.bad"]
            await #expect(throws: WebSocketClient.ConnectError.self) {
                _ = try await WebSocketClient.connect(
                    host: "127.0.0.1", port: address.port, path: "/auth", options: options, on: group.next())
            }
        }
    }

    @Test func replaceableMessagesCoalesceWhileEventsAreKept() async throws {
        let queued = Observed<Int?>(nil)
        // On a clock that stands still: however slowly a sanitized build floods, no write timeout or ping intervenes.
        let clock = ManualClock()
        try await withServer(
            testConfiguration { $0.clock = .manual(clock) },
            router: echoRouter(flooded: { count in queued.record { $0 = count } })
        ) { address, _ in
            let client = try Self.rawSocket(address, path: "/flood")
            client.send(Self.frame(0x81, Array("go".utf8)))
            // Reading only once the server has sent everything: 500 × 64 KiB exceed the socket buffers, so its queue
            // fills and replaces.
            #expect(await queued.arrival { $0 != nil })
            #expect((queued.current ?? 0) > 0, "the flood backed up into the queue")
            var decoder = WebSocketFrameDecoder(role: .client, maxFrameBytes: 1 << 20)
            var texts: [String] = []
            while texts.last != "event" {
                let bytes = client.readSome()
                if bytes.isEmpty { break }
                decoder.append(contentsOf: bytes)
                while case .frame(let frame) = decoder.next() {
                    texts.append(String(decoding: frame.payload.prefix(20), as: UTF8.self))
                }
            }
            #expect(texts.last == "event")
            #expect(texts.contains { $0.hasPrefix("snapshot 499 ") }, "the newest snapshot is never lost")
            #expect(texts.count < 501, "older snapshots were replaced while queued: got \(texts.count)")
        }
    }

    static let badHandshakes: [(String, Int)] = [
        (
            "GET /echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 8\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
            426
        ),
        (
            "GET /echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: c2hvcnQ=\r\n\r\n",
            400
        ),
        (
            "GET /echo HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
            400
        ),
        (
            "POST /echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nContent-Length: 0\r\n\r\n",
            405
        ),
    ]

    @Test(arguments: badHandshakes)
    func refusesInvalidHandshakes(request: String, status: Int) async throws {
        try await withServer(router: echoRouter()) { address, _ in
            let client = try TestClient(address)
            client.send(request)
            let response = try #require(client.readResponse())
            #expect(response.status == status)
            if status == 426 { #expect(response.header("Sec-WebSocket-Version") == "13") }
        }
    }

    /// Opens a raw connection through the handshake and returns it for byte-level tests.
    static func rawSocket(
        _ address: SocketAddress, path: String = "/echo", receiveBufferSize: Int32? = nil
    ) throws -> TestClient {
        let client = try TestClient(address, receiveBufferSize: receiveBufferSize)
        client.send(
            "GET \(path) HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
        let response = client.readResponse()
        precondition(response?.status == 101)
        precondition(response?.header("Sec-WebSocket-Accept") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        return client
    }

    /// A masked frame with the given header byte and payload.
    static func frame(_ first: UInt8, _ payload: [UInt8], masked: Bool = true) -> [UInt8] {
        var bytes: [UInt8] = [first]
        let mask: [UInt8] = [1, 2, 3, 4]
        precondition(payload.count < 126)
        bytes.append(UInt8(payload.count) | (masked ? 0x80 : 0))
        if masked { bytes += mask }
        bytes += payload.enumerated().map { masked ? $1 ^ mask[$0 % 4] : $1 }
        return bytes
    }

    static let violations: [(String, [UInt8], UInt16)] = [
        ("unmasked client frame", frame(0x81, Array("hi".utf8), masked: false), 1002),
        ("reserved opcode", frame(0x83, []), 1002),
        ("RSV2 set", frame(0xA1, Array("hi".utf8)), 1002),
        ("fragmented ping", frame(0x09, []), 1002),
        (
            "invalid UTF-8",
            frame(0x81, [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xED, 0xA0, 0x80]), 1007
        ),
        ("continuation without start", frame(0x80, Array("x".utf8)), 1002),
        ("close with invalid code", frame(0x88, [0x03, 0xED]), 1002),
    ]

    @Test(arguments: violations)
    func answersProtocolViolationsWithTheirCloseCode(name: String, bytes: [UInt8], code: UInt16) async throws {
        try await withServer(router: echoRouter()) { address, _ in
            let client = try Self.rawSocket(address)
            client.send(bytes)
            let reply = client.readToEnd()
            #expect(reply.count >= 4, "\(name): a close frame")
            #expect(reply.first == 0x88, "\(name)")
            #expect(reply.count >= 4 && UInt16(reply[2]) << 8 | UInt16(reply[3]) == code, "\(name)")
        }
    }

    @Test func answersPingWithPongAndIgnoresUnsolicitedPong() async throws {
        try await withServer(router: echoRouter()) { address, _ in
            let client = try Self.rawSocket(address)
            client.send(Self.frame(0x8A, Array("unsolicited".utf8)) + Self.frame(0x89, Array("ping!".utf8)))
            var reply: [UInt8] = []
            while reply.count < 7 {
                let more = client.readSome()
                if more.isEmpty { break }
                reply += more
            }
            #expect(reply == [0x8A, 0x05] + Array("ping!".utf8))
        }
    }

    @Test func refusesMessagesOverTheLimitWith1009() async throws {
        var configuration = WebSocketConfiguration()
        configuration.maxMessageBytes = 10
        try await withServer(router: echoRouter(configuration: configuration)) { address, _ in
            let client = try Self.rawSocket(address)
            client.send(Self.frame(0x01, Array("123456".utf8)) + Self.frame(0x80, Array("789012".utf8)))
            let reply = client.readToEnd()
            #expect(Array(reply.prefix(4)) == [0x88, UInt8(reply.count - 2), 0x03, 0xF1])
        }
    }

    /// A frame and the client's FIN that arrive while the loop is busy come in one readiness event, which is the
    /// last edge the socket raises: the server must read on to the end of the stream to see the client has gone.
    @Test func seesTheEndOfAStreamThatArrivesWithData() async throws {
        // A manual clock no test advances: no ping, idle or close timer can end the connection, only the FIN.
        let clock = ManualClock()
        // Whether the server saw the end, and the close code it got (none for a bare FIN).
        let ended = Observed<(seen: Bool, code: WebSocketCloseCode?)>((false, nil))
        var router = Router()
        router.webSocket("/busy") { socket in
            socket.onMessage = { message in
                // Keeps the loop away from the socket while the rest arrives.
                if case .text("busy") = message.message { usleep(500_000) }
            }
            socket.onClose = { code, _ in ended.record { $0 = (true, code) } }
        }
        try await withServer(testConfiguration { $0.clock = .manual(clock) }, router: router) { address, _ in
            let client = try Self.rawSocket(address, path: "/busy")
            client.send(Self.frame(0x81, Array("busy".utf8)))
            try await Task.sleep(nanoseconds: 100_000_000)
            client.send(Self.frame(0x81, Array("last".utf8)))
            client.shutdownWrite()
            #expect(await ended.arrival(within: .seconds(10)) { $0.seen }, "the server did not see the client's FIN")
            #expect(ended.current.code == nil, "no close frame: 1006")
        }
    }

    @Test func pingsQuietClientsAndClosesSilentOnes() async throws {
        let clock = ManualClock()
        var configuration = WebSocketConfiguration()
        configuration.pingInterval = .seconds(30)
        configuration.idleTimeout = .seconds(90)
        configuration.closeTimeout = .seconds(10)
        try await withServer(
            testConfiguration { $0.clock = .manual(clock) }, router: echoRouter(configuration: configuration)
        ) { address, _ in
            let client = try Self.rawSocket(address)
            // An echo: the server's socket is open and its ping timer armed.
            client.send(Self.frame(0x81, Array("hi".utf8)))
            #expect(client.readSome() == [0x81, 0x02] + Array("hi".utf8))
            await clock.advance(by: .seconds(30) - .milliseconds(1))
            #expect(client.isOpenWithNothingToRead(), "no ping before the interval")
            await clock.advance(by: .milliseconds(1))
            #expect(client.readSome() == [0x89, 0x00], "the server pings a quiet client")
            await clock.advance(by: .seconds(30))
            #expect(client.readSome() == [0x89, 0x00], "and again while it stays quiet")
            // Never answering: at the idle timeout the server closes with 1001 "idle"…
            await clock.advance(by: .seconds(30))
            #expect(client.readSome() == [0x88, 0x06, 0x03, 0xE9] + Array("idle".utf8))
            await clock.advance(by: .seconds(10) - .milliseconds(1))
            #expect(client.isOpenWithNothingToRead(), "waiting for the client's close frame")
            // …and drops the connection when no close frame answers within the close timeout.
            await clock.advance(by: .milliseconds(1))
            #expect(client.isClosedByPeer())
        }
    }

    @Test func aClientThatAnswersIsNotPingedOrClosed() async throws {
        let clock = ManualClock()
        var configuration = WebSocketConfiguration()
        configuration.pingInterval = .seconds(30)
        configuration.idleTimeout = .seconds(90)
        try await withServer(
            testConfiguration { $0.clock = .manual(clock) }, router: echoRouter(configuration: configuration)
        ) { address, _ in
            let client = try Self.rawSocket(address)
            // A message every 20 s for 10 minutes: never quiet for a ping interval.
            for index in 0..<30 {
                let text = Array("m\(index)".utf8)
                client.send(Self.frame(0x81, text))
                #expect(client.readSome() == [0x81, UInt8(text.count)] + text)
                await clock.advance(by: .seconds(20))
            }
            #expect(client.isOpenWithNothingToRead(), "no ping, no close")
        }
    }

    @Test func hubClosesEveryConnectionWithGoingAway() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        let hub = WebSocketHub()
        try await withServer(router: echoRouter(hub: hub)) { address, _ in
            var inboxes: [Inbox] = []
            for _ in 0..<3 { inboxes.append(try await Self.connect(address, group: group).1) }
            while hub.count < 3 { await Task.yield() }
            await hub.closeAll(code: .goingAway, reason: "shutdown")
            for inbox in inboxes {
                await inbox.wait { $0.close != nil }
                #expect(inbox.close?.0 == .goingAway)
            }
            #expect(hub.count == 0)
        }
    }
}

/// A hub's `closeAll` returns once every connection's close handler has run, not merely once the sockets closed:
/// what the handlers start (a live session's last checkpoint) is under way when a shutdown goes on to wait for it.
@Suite("WebSocket hub")
struct WebSocketHubTests {
    @Test func closeAllReturnsAfterEveryCloseHandlerHasRun() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        let hub = WebSocketHub()
        let handled = Locked(0)
        var router = Router()
        router.webSocket("/slow-close", hub: hub) { socket in
            socket.onClose = { _, _ in
                // A handler slower than closeAll's polling (every 10 ms).
                usleep(50_000)
                handled.withLock { $0 += 1 }
            }
        }
        try await withServer(router: router) { address, _ in
            var inboxes: [Inbox] = []
            for _ in 0..<3 {
                inboxes.append(try await WebSocketTests.connect(address, "/slow-close", group: group).1)
            }
            while hub.count < 3 { await Task.yield() }
            await hub.closeAll(code: .goingAway, reason: "shutdown")
            #expect(handled.withLock { $0 } == 3)
            #expect(hub.count == 0)
            for inbox in inboxes { await inbox.wait { $0.close != nil } }
        }
    }
}

/// Pausing a connection's reading (flow control): no message after the pausing one is delivered until it resumes,
/// however many arrived in the same read, and none is lost.
@Suite("WebSocket flow control")
struct WebSocketFlowControlTests {
    struct Record: Sendable {
        var delivered: [String] = []
        var resumedAfter: Int?
    }

    /// Pauses after the third message and resumes 200 ms later; echoes nothing, records the order.
    static func router(_ record: Observed<Record>) -> Router {
        var router = Router()
        router.webSocket("/paced") { socket in
            socket.onMessage = { message in
                guard case .text(let text) = message.message else { return }
                var count = 0
                record.record { state in
                    state.delivered.append(text)
                    count = state.delivered.count
                }
                guard count == 3 else { return }
                socket.pauseReading()
                _ = socket.loop.schedule(after: .milliseconds(200)) {
                    record.record { $0.resumedAfter = $0.delivered.count }
                    socket.resumeReading()
                }
            }
        }
        return router
    }

    @Test(arguments: [true, false])
    func noMessageIsDeliveredWhilePausedAndNoneIsLost(compression: Bool) async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        let record = Observed(Record())
        let clock = ManualClock()
        try await withServer(testConfiguration { $0.clock = .manual(clock) }, router: Self.router(record)) {
            address, _ in
            var options = WebSocketClient.Options()
            options.compression = compression
            let (socket, _) = try await WebSocketTests.connect(address, "/paced", options: options, group: group)
            let sent = (0..<200).map { "message \($0)" }
            for text in sent { socket.send(.text(text)) }
            await record.wait { $0.delivered.count >= 3 }
            await clock.advance(by: .milliseconds(200) - .nanoseconds(1))
            #expect(record.current.delivered.count == 3, "paused until the timer")
            await clock.advance(by: .nanoseconds(1))
            await record.wait { $0.delivered.count == sent.count }
            let state = record.current
            #expect(state.delivered == sent, "every message, in order")
            #expect(state.resumedAfter == 3, "nothing was delivered between the pause and the resume")
            socket.close()
        }
    }
}
