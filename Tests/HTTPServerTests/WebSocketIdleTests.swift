import HTTPWire
import Testing

@testable import HTTPServer

/// What an open, idle WebSocket connection keeps: not the handshake request once started, and no timer of its own.
@Suite("WebSocket idle connections")
struct WebSocketIdleTests {
    /// Runs `body` on `loop` and returns its result.
    static func on<T: Sendable>(_ loop: EventLoop, _ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in loop.execute { continuation.resume(returning: body()) } }
    }

    @Test(arguments: [false, true])
    func theRequestIsReadDuringTheUpgradeAndReleasedOnceTheConnectionStartsUnlessKept(keeps: Bool) async throws {
        var configuration = WebSocketConfiguration()
        configuration.keepsRequest = keeps
        var router = Router()
        router.webSocket("/echo", configuration: configuration) { socket in
            let path = socket.request?.path ?? "none"
            socket.onMessage = { _ in
                socket.send(.text("\(path) \(socket.request == nil ? "released" : "kept")"))
            }
        }
        try await withServer(router: router) { address, _ in
            let client = try WebSocketTests.rawSocket(address)
            client.send(WebSocketTests.frame(0x81, Array("hi".utf8)))
            let reply = Array("/echo \(keeps ? "kept" : "released")".utf8)
            #expect(client.readSome() == [0x81, UInt8(reply.count)] + reply)
        }
    }

    @Test func idleConnectionsWaitInTheLoopsKeepAliveQueueAndLeaveItWhenTheyClose() async throws {
        let clock = ManualClock()
        var configuration = WebSocketConfiguration()
        configuration.pingInterval = .seconds(30)
        let interval = EventLoop.nanoseconds(configuration.pingInterval)
        try await withServer(
            testConfiguration {
                $0.clock = .manual(clock)
                $0.loops = 1
            },
            router: echoRouter(configuration: configuration)
        ) { address, server in
            let loop = server.group.loops[0]
            var clients: [TestClient] = []
            for index in 0..<3 {
                let client = try WebSocketTests.rawSocket(address)
                let text = Array("m\(index)".utf8)
                client.send(WebSocketTests.frame(0x81, text))
                #expect(client.readSome() == [0x81, UInt8(text.count)] + text)
                clients.append(client)
            }
            #expect(await Self.on(loop) { loop.keepAliveQueues[interval]?.count } == 3)
            // A client leaves with a close frame; the server answers and closes, releasing its entry.
            clients[0].send(WebSocketTests.frame(0x88, [0x03, 0xE8]))
            #expect(clients[0].readSome() == [0x88, 0x02, 0x03, 0xE8])
            #expect(clients[0].isClosedByPeer())
            await clock.advance(by: .seconds(30))
            #expect(clients[1].readSome() == [0x89, 0x00], "the others are pinged")
            #expect(clients[2].readSome() == [0x89, 0x00])
            #expect(await Self.on(loop) { loop.keepAliveQueues[interval]?.count } == 2, "and armed again")
        }
    }
}
