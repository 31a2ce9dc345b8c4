import Foundation
import Glibc
import HTTPServer
import HTTPWire
import Synchronization
import Testing

/// What the server side of a WebSocket connection saw, recorded from its loop.
final class ServerSideProbe: Sendable {
    struct State {
        /// The close code and reason ``WebSocket/onClose`` got, once it was called.
        var close: (code: WebSocketCloseCode?, reason: String)?
        /// The server's queued bytes when a "mark" message arrived.
        var queuedAtMark: Int?
        /// The server's queued bytes right after it sent its flood.
        var queuedAfterFlood: Int?
    }

    private let state = Mutex(State())
    private let arrivals: AsyncStream<Void>.Continuation
    private let signals: AsyncStream<Void>

    init() { (signals, arrivals) = AsyncStream.makeStream(of: Void.self) }

    /// What has been recorded so far.
    var current: State { state.withLock { $0 } }

    /// Records an observation and wakes waiters.
    func record(_ update: (inout State) -> Void) {
        state.withLock { update(&$0) }
        arrivals.yield()
    }

    /// Waits until `condition` holds, at most `timeout`.
    /// - Returns: Whether it held in time.
    func arrival(within timeout: Duration, until condition: @escaping @Sendable (State) -> Bool) async -> Bool {
        if condition(current) { return true }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in self.signals where condition(self.current) { return true }
                return condition(self.current)
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}

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
        // A pong per ping would pass this bound after eight pings, and the connection would close with 1008.
        configuration.maxQueuedBytes = 1024
        configuration.writeTimeout = .seconds(3600)
        // No keep-alive ping of the server's own among the pongs, however slowly a sanitized build takes the flood.
        configuration.pingInterval = .seconds(3600)
        configuration.idleTimeout = .seconds(3600)
        let probe = ServerSideProbe()
        try await withServer(router: Self.router(configuration, probe)) { address, _ in
            let client = try Self.slowReader(address, path: "/quiet")
            let pings = 50_000
            var flood: [UInt8] = []
            flood.reserveCapacity(pings * 131 + 10)
            for index in 0..<pings { flood += WebSocketTests.frame(0x89, Self.pingPayload(index)) }
            flood += WebSocketTests.frame(0x81, Array("mark".utf8))
            client.send(flood)
            #expect(await probe.arrival(within: .seconds(30)) { $0.queuedAtMark != nil || $0.close != nil })
            #expect(probe.current.close == nil, "a peer is not disconnected for pinging")
            let queued = try #require(probe.current.queuedAtMark)
            #expect(queued <= 2 * 127, "one pong being written and one waiting at most; \(queued) bytes queued")

            // Reading at last: the newest ping is answered, and pongs to older ones were replaced.
            var decoder = WebSocketFrameDecoder(role: .client, maxFrameSize: 1 << 20)
            var pongs = 0
            var answeredNewest = false
            reading: while true {
                let bytes = client.readSome()
                if bytes.isEmpty { break }
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
        configuration.writeTimeout = .milliseconds(300)
        configuration.maxQueuedBytes = 1 << 30
        let probe = ServerSideProbe()
        try await withServer(router: Self.router(configuration, probe, flood: 256)) { address, _ in
            let client = try Self.slowReader(address, path: "/flood")
            client.send(WebSocketTests.frame(0x82, [1]))
            #expect(await probe.arrival(within: .seconds(10)) { $0.queuedAfterFlood != nil })
            #expect((probe.current.queuedAfterFlood ?? 0) > 0, "the flood outgrew the socket's buffers")
            // Pinging all the while, never reading: input does not keep the connection open.
            var index = 0
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(10)
            while probe.current.close == nil, clock.now < deadline {
                client.send(WebSocketTests.frame(0x89, Self.pingPayload(index)))
                index += 1
                try await Task.sleep(for: .milliseconds(20))
            }
            let close = try #require(probe.current.close, "dropped within 10 s")
            #expect(close.code == nil, "no close frame was exchanged: 1006")
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

    /// Asks `/flood` for its flood, waits until the server has queued it, then reads at most `chunk` bytes every
    /// `pause` microseconds until the text "end" arrives, the connection closes, or `limit` has passed; then closes.
    ///
    /// It runs on a thread of its own, not in the test's task: a client that must keep pace is then not held up
    /// by other tests that block the shared threads of the concurrency pool.
    static func readPaced(
        _ address: SocketAddress, probe: ServerSideProbe, chunk: Int, pause: UInt32, limit: Duration = .seconds(60)
    ) async throws -> PacedRead {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<PacedRead, any Error>) in
            let thread = Thread {
                continuation.resume(
                    with: Result {
                        let client = try Self.slowReader(address, path: "/flood")
                        defer { client.close() }
                        var read = PacedRead()
                        let clock = ContinuousClock()
                        let flooded = clock.now + .seconds(10)
                        client.send(WebSocketTests.frame(0x82, [1]))
                        while probe.current.queuedAfterFlood == nil, clock.now < flooded { usleep(1000) }
                        read.queuedAfterFlood = probe.current.queuedAfterFlood
                        var decoder = WebSocketFrameDecoder(role: .client, maxFrameSize: 1 << 20)
                        var buffer = [UInt8](repeating: 0, count: chunk)
                        let end = clock.now + limit
                        reading: while clock.now < end {
                            let count = buffer.withUnsafeMutableBytes { recv(client.fd, $0.baseAddress, $0.count, 0) }
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
                            usleep(pause)
                        }
                        read.serverClosed = probe.current.close != nil
                        return read
                    })
            }
            thread.start()
        }
    }

    @Test func keepsAPeerThatReadsSlowlyButSteadily() async throws {
        var configuration = WebSocketConfiguration()
        configuration.writeTimeout = .seconds(4)
        configuration.maxQueuedBytes = 1 << 30
        let probe = ServerSideProbe()
        let messages = 192
        try await withServer(router: Self.router(configuration, probe, flood: messages)) { address, _ in
            // At most 16 KiB every 20 ms (800 KB/s): the 4 MiB or more the server queues take longer than the write
            // timeout to leave, so the timer fires while bytes wait and must find that the peer took some. The
            // timeout is generous: on a loaded machine the reader may start seconds after the flood filled the socket.
            let read = try await Self.readPaced(address, probe: probe, chunk: 16 * 1024, pause: 20_000)
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
        configuration.maxQueuedBytes = 1 << 30
        let probe = ServerSideProbe()
        try await withServer(router: Self.router(configuration, probe, flood: 128)) { address, _ in
            // 8 KiB every 80 ms for 9 s: so little that the server is not woken to write for longer than the write
            // timeout (the kernel wakes it when much of its buffer is free), yet the peer takes bytes all along. The
            // timeout is generous: on a loaded machine the reader may start seconds after the flood filled the socket.
            let read = try await Self.readPaced(
                address, probe: probe, chunk: 8 * 1024, pause: 80_000, limit: .seconds(9))
            #expect(read.queuedAfterFlood != nil)
            #expect(read.bytes > 0)
            #expect(!read.serverClosed, "a reader that keeps taking bytes is not dropped")
        }
    }

    @Test func closesAPeerThatFallsBehindTheQueueBoundWith1008() async throws {
        var configuration = WebSocketConfiguration()
        configuration.maxQueuedBytes = 256 * 1024
        configuration.writeTimeout = .seconds(3600)
        // The close timeout runs from when the close frame is queued; the client reads only later.
        configuration.closeTimeout = .seconds(3600)
        let probe = ServerSideProbe()
        try await withServer(router: Self.router(configuration, probe, flood: 256)) { address, _ in
            let client = try Self.slowReader(address, path: "/flood")
            client.send(WebSocketTests.frame(0x82, [1]))
            #expect(await probe.arrival(within: .seconds(10)) { $0.queuedAfterFlood != nil })
            // Reading only now: what was queued before the bound was passed, then the close frame, always sendable.
            var decoder = WebSocketFrameDecoder(role: .client, maxFrameSize: 1 << 20)
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
