import Foundation
import Glibc
import HTTPServer
import HTTPWire
import Synchronization
import Testing

/// What the server side of a WebSocket connection saw, recorded from its loop.
struct ServerSide: Sendable {
    /// The close code and reason ``WebSocket/onClose`` got, once it was called.
    var close: (code: WebSocketCloseCode?, reason: String)?
    /// The server's queued bytes when a "mark" message arrived.
    var queuedAtMark: Int?
    /// The server's queued bytes right after it sent its flood.
    var queuedAfterFlood: Int?
}

typealias ServerSideProbe = Observed<ServerSide>

@Suite("WebSocket abuse: ping floods and peers that stop reading")
struct WebSocketAbuseTests {
    /// `/quiet` sends nothing of its own and records its queue at a "mark" message; `/flood` answers any message
    /// with `flood` binary messages of 64 KiB, then the text "end".
    static func router(_ configuration: WebSocketConfiguration, _ probe: ServerSideProbe, flood: Int = 0) -> Router {
        var router = Router()
        router.webSocket("/quiet", configuration: configuration) { socket in
            socket.onMessage = { _ in
                let queued = socket.queuedByteCount
                probe.record { $0.queuedAtMark = queued }
            }
            socket.onClose = { code, reason in probe.record { $0.close = (code, reason) } }
        }
        router.webSocket("/flood", configuration: configuration) { socket in
            socket.onMessage = { _ in
                let chunk = [UInt8](repeating: 0x2A, count: 64 * 1024)
                for _ in 0..<flood { socket.send(.binary(chunk)) }
                socket.send(.text("end"))
                let queued = socket.queuedByteCount
                probe.record { $0.queuedAfterFlood = queued }
            }
            socket.onClose = { code, reason in probe.record { $0.close = (code, reason) } }
        }
        return router
    }

    /// A raw client whose receive buffer is fixed at a modest size (no autotuning), so that what the server sends
    /// backs up into its queue rather than into the kernel's buffers. Not smaller: a window under the loopback's
    /// 64 KiB segment would slow reading to a crawl once the client reads. Set before connecting: shrunk afterwards,
    /// the buffer would hold more than its size (the window already offered cannot shrink), and the client would
    /// have to read all of that before the window opened again and the server saw any progress.
    static func slowReader(_ address: SocketAddress, path: String) throws -> TestClient {
        try WebSocketTests.rawSocket(address, path: path, receiveBufferSize: 128 * 1024)
    }

    /// A 125-byte ping payload (the most RFC 6455 §5.5 allows) that tells which ping it is.
    static func pingPayload(_ index: Int) -> [UInt8] {
        withUnsafeBytes(of: UInt64(index).bigEndian) { Array($0) } + [UInt8](repeating: 0x70, count: 117)
    }

    @Test func answersAPingFloodWithOnePendingPongWhileThePeerDoesNotRead() async throws {
        var configuration = WebSocketConfiguration()
        configuration.writeTimeout = .seconds(3600)
        // No keep-alive ping of the server's own among the pongs, however slowly a sanitized build takes the flood.
        configuration.pingInterval = .seconds(3600)
        configuration.idleTimeout = .seconds(3600)
        let probe = ServerSideProbe(ServerSide())
        // A pong per ping would pass this bound after eight pings, and the connection would close with 1008.
        let server = testConfiguration { $0.budget.pendingOutputBytes = 1024 }
        try await withServer(server, router: Self.router(configuration, probe)) { address, _ in
            let client = try Self.slowReader(address, path: "/quiet")
            let pings = 50_000
            var flood: [UInt8] = []
            flood.reserveCapacity(pings * 131 + 10)
            for index in 0..<pings { flood += WebSocketTests.frame(0x89, Self.pingPayload(index)) }
            flood += WebSocketTests.frame(0x81, Array("mark".utf8))
            // Generous bounds, for failing rather than hanging: the whole test suite running beside it has made the
            // flood take over 60 s to send on a 2-core machine.
            #expect(client.sendPaced(flood, timeoutSeconds: 300), "the server takes the flood")
            #expect(await probe.arrival(within: .seconds(120)) { $0.queuedAtMark != nil || $0.close != nil })
            #expect(probe.current.close == nil, "a peer is not disconnected for pinging")
            let queued = try #require(probe.current.queuedAtMark)
            #expect(queued <= 2 * 127, "one pong being written and one waiting at most; \(queued) bytes queued")

            // Reading at last: the newest ping is answered, and pongs to older ones were replaced.
            var decoder = WebSocketFrameDecoder(role: .client, maxFrameBytes: 1 << 20)
            var pongs = 0
            var answeredNewest = false
            // A read that times out on a loaded machine is not the end: reading goes on until a generous deadline.
            let deadline = ContinuousClock.now + .seconds(180)
            reading: while ContinuousClock.now < deadline {
                let bytes = client.readSome()
                if bytes.isEmpty {
                    try await Task.sleep(for: .milliseconds(10))
                    continue
                }
                decoder.append(contentsOf: bytes)
                while case .frame(let frame) = decoder.next() {
                    #expect(frame.opcode == .pong)
                    pongs += 1
                    if frame.payload == Self.pingPayload(pings - 1) {
                        answeredNewest = true
                        break reading
                    }
                }
            }
            #expect(answeredNewest)
            // 6 MB of pongs exceed what the kernel buffers between the two (Linux sends at most 4 MiB by default).
            #expect(pongs < pings, "pongs to older pings were replaced while the peer did not read")
        }
    }

    @Test func dropsAPeerThatStopsReadingAfterTheWriteTimeoutEvenWhileItSends() async throws {
        var configuration = WebSocketConfiguration()
        configuration.writeTimeout = .seconds(4)
        let probe = ServerSideProbe(ServerSide())
        let clock = ManualClock()
        try await withServer(
            testConfiguration {
                $0.clock = .manual(clock)
                $0.budget.pendingOutputBytes = 1 << 30
            }, router: Self.router(configuration, probe, flood: 256)
        ) { address, _ in
            let client = try Self.slowReader(address, path: "/flood")
            client.send(WebSocketTests.frame(0x82, [1]))
            #expect(await probe.arrival(within: .seconds(10)) { $0.queuedAfterFlood != nil })
            #expect((probe.current.queuedAfterFlood ?? 0) > 0, "the flood outgrew the socket's buffers")
            // On a busy machine the kernel may still be moving the flood into the client's buffer: bytes the peer
            // takes count as progress, so the stall is timed once that delivery is over.
            #expect(client.waitUntilReceiveQueueSettles() != nil, "loopback delivery ended")
            // Pinging every 100 ms, never reading: input does not keep the connection open.
            var waited = Duration.zero
            for index in 0..<100 where probe.current.close == nil {
                client.send(WebSocketTests.frame(0x89, Self.pingPayload(index)))
                await clock.advance(by: .milliseconds(100))
                waited += .milliseconds(100)
            }
            let close = try #require(probe.current.close, "dropped within 10 s")
            #expect(close.code == nil, "no close frame was exchanged: 1006")
            #expect(waited >= .seconds(4), "not before the write timeout: after \(waited)")
            #expect(waited <= .seconds(9), "within about two write timeouts: after \(waited)")
        }
    }

    /// What a client that reads at its own pace saw.
    struct PacedRead: Sendable {
        /// The server's queued bytes once its flood was sent; nil if it never was.
        var queuedAfterFlood: Int?
        var bytes = 0
        var binaries = 0
        var ended = false
        /// Whether the server had closed the connection when the client stopped reading.
        var serverClosed = false
    }

    /// Asks `/flood` for its flood, waits until the server has queued it, then reads at most `chunk` bytes and
    /// moves `clock` by `pause` until the text "end" arrives, the connection closes, or `limit` has passed on the
    /// clock; then closes.
    ///
    /// The reads run on a thread of their own, not in the test's task: a blocking read must not hold one of the
    /// concurrency pool's few threads.
    static func readPaced(
        _ address: SocketAddress, probe: ServerSideProbe, clock: ManualClock, chunk: Int, pause: Duration,
        limit: Duration = .seconds(60)
    ) async throws -> PacedRead {
        let client = try Self.slowReader(address, path: "/flood")
        defer { client.close() }
        client.send(WebSocketTests.frame(0x82, [1]))
        var read = PacedRead()
        guard await probe.arrival(within: .seconds(30), until: { $0.queuedAfterFlood != nil }) else { return read }
        read.queuedAfterFlood = probe.current.queuedAfterFlood
        let fd = client.fd
        return try await offPool { [read] in
            var read = read
            var decoder = WebSocketFrameDecoder(role: .client, maxFrameBytes: 1 << 20)
            var buffer = [UInt8](repeating: 0, count: chunk)
            var elapsed = Duration.zero
            reading: while elapsed < limit {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count <= 0 { break }
                read.bytes += count
                decoder.append(contentsOf: buffer[0..<count])
                while case .frame(let frame) = decoder.next() {
                    if frame.opcode == .binary { read.binaries += 1 }
                    if frame.opcode == .text {
                        read.ended = true
                        break reading
                    }
                }
                clock.advanceBlocking(by: pause)
                elapsed += pause
            }
            read.serverClosed = probe.current.close != nil
            return read
        }
    }

    @Test func keepsAPeerThatReadsSlowlyButSteadily() async throws {
        var configuration = WebSocketConfiguration()
        configuration.writeTimeout = .seconds(4)
        let probe = ServerSideProbe(ServerSide())
        let clock = ManualClock()
        let messages = 192
        try await withServer(
            testConfiguration {
                $0.clock = .manual(clock)
                $0.budget.pendingOutputBytes = 1 << 30
            }, router: Self.router(configuration, probe, flood: messages)
        ) { address, _ in
            // At most 16 KiB every 20 ms (800 KB/s): the 4 MiB or more the server queues take longer than the write
            // timeout to leave, so the timer fires while bytes wait and must find that the peer took some.
            let read = try await Self.readPaced(
                address, probe: probe, clock: clock, chunk: 16 * 1024, pause: .milliseconds(20))
            let queued = try #require(read.queuedAfterFlood)
            #expect(queued >= 4 << 20, "the flood backed up into the server's queue: \(queued) bytes")
            #expect(read.ended, "the whole flood arrived")
            #expect(read.binaries == messages)
            #expect(!read.serverClosed, "a reader that keeps taking bytes is not dropped")
        }
    }

    @Test func countsBytesThePeerTakesFromTheKernelBufferAsProgress() async throws {
        var configuration = WebSocketConfiguration()
        configuration.writeTimeout = .seconds(4)
        let probe = ServerSideProbe(ServerSide())
        let clock = ManualClock()
        try await withServer(
            testConfiguration {
                $0.clock = .manual(clock)
                $0.budget.pendingOutputBytes = 1 << 30
            }, router: Self.router(configuration, probe, flood: 128)
        ) { address, _ in
            // 8 KiB every 80 ms for 9 s: so little that the server is not woken to write for longer than the write
            // timeout (the kernel wakes it when much of its buffer is free), yet the peer takes bytes all along.
            let read = try await Self.readPaced(
                address, probe: probe, clock: clock, chunk: 8 * 1024, pause: .milliseconds(80), limit: .seconds(9))
            #expect(read.queuedAfterFlood != nil)
            #expect(read.bytes > 0)
            #expect(!read.serverClosed, "a reader that keeps taking bytes is not dropped")
        }
    }

    @Test func closesAPeerThatFallsBehindTheQueueBoundWith1008() async throws {
        var configuration = WebSocketConfiguration()
        configuration.writeTimeout = .seconds(3600)
        // The close timeout runs from when the close frame is queued; the client reads only later.
        configuration.closeTimeout = .seconds(3600)
        let probe = ServerSideProbe(ServerSide())
        let server = testConfiguration { $0.budget.pendingOutputBytes = 256 * 1024 }
        try await withServer(server, router: Self.router(configuration, probe, flood: 256)) { address, _ in
            let client = try Self.slowReader(address, path: "/flood")
            client.send(WebSocketTests.frame(0x82, [1]))
            #expect(await probe.arrival(within: .seconds(10)) { $0.queuedAfterFlood != nil })
            // Reading only now: what was queued before the bound was passed, then the close frame, always sendable.
            var decoder = WebSocketFrameDecoder(role: .client, maxFrameBytes: 1 << 20)
            decoder.append(contentsOf: client.readToEnd())
            var last: WebSocketFrame?
            while case .frame(let frame) = decoder.next() { last = frame }
            let close = try #require(last)
            #expect(close.opcode == .close)
            #expect(Array(close.payload.prefix(2)) == [0x03, 0xF0], "1008")
            #expect(String(decoding: close.payload.dropFirst(2), as: UTF8.self) == "too slow")
        }
    }
}
